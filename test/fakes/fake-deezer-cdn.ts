import type { Clock } from '@crateflow/sdk';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen-on-loopback.js';
import { replyText } from './reply.js';
import { silentMp3 } from './silent-mp3.js';

/** Mints a signed preview URL for a track, valid 900 s from now. */
export type PreviewSigner = (trackId: number) => string;

export interface FakeDeezerCdn {
  readonly origin: string;
  readonly sign: PreviewSigner;
  close(): Promise<void>;
}

const VALID_SECONDS = 900;
const SECRET = 'fake-deezer-cdn';

/**
 * The preview CDN of shared/reference/deezer-api.md §6: signed URLs
 * `/api/1/1/<hash>.mp3?hdnea=exp=<epoch>~acl=…~hmac=<64 hex>` that expire 900 s after the API answered; an expired
 * or tampered URL gets 403; `Range` is honoured with 206; CORS open and publicly cacheable. Every preview is the
 * same 30 s of silence, a valid MP3 a browser plays.
 */
export async function startFakeDeezerCdn(clock: Clock): Promise<FakeDeezerCdn> {
  const mp3 = silentMp3();
  const mac = (path: string, exp: number) => createHmac('sha256', SECRET).update(`${path}|${exp}`).digest('hex');

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://cdn.invalid');
    const forbidden = () => replyText(res, 403, '<html><body><h1>403 Forbidden</h1></body></html>', 'text/html');
    const token = /^exp=(\d+)~acl=([^~]+)~hmac=([0-9a-f]{64})$/.exec(url.searchParams.get('hdnea') ?? '');
    if (!/^\/api\/1\/1\/[0-9a-f]{32}\.mp3$/.test(url.pathname) || !token) return forbidden();
    const exp = Number(token[1]);
    const expected = Buffer.from(mac(url.pathname, exp));
    const given = Buffer.from(token[3] ?? '');
    if (exp * 1000 <= clock.now() || expected.length !== given.length || !timingSafeEqual(expected, given)) return forbidden();
    const headers = { 'content-type': 'audio/mpeg', 'accept-ranges': 'bytes', 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=900' };
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    if (!range || (range[1] === '' && range[2] === '')) {
      res.writeHead(200, { ...headers, 'content-length': mp3.length });
      return void res.end(mp3);
    }
    // A suffix range (`bytes=-500`) asks for the last bytes; an open end runs to the last byte.
    const start = range[1] === '' ? Math.max(0, mp3.length - Number(range[2])) : Number(range[1]);
    const end = range[1] === '' || range[2] === '' ? mp3.length - 1 : Math.min(Number(range[2]), mp3.length - 1);
    if (start >= mp3.length || start > end) {
      res.writeHead(416, { ...headers, 'content-range': `bytes */${mp3.length}` });
      return void res.end();
    }
    res.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${mp3.length}`, 'content-length': end - start + 1 });
    res.end(mp3.subarray(start, end + 1));
  };

  const listener = await listenOnLoopback(handle);
  return {
    origin: listener.origin,
    sign: (trackId) => {
      const path = `/api/1/1/${createHmac('md5', SECRET).update(String(trackId)).digest('hex')}.mp3`;
      const exp = Math.floor(clock.now() / 1000) + VALID_SECONDS;
      return `${listener.origin}${path}?hdnea=exp=${exp}~acl=${path}*~hmac=${mac(path, exp)}`;
    },
    close: () => listener.close(),
  };
}
