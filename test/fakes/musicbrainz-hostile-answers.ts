import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HostileAnswer } from './fake-musicbrainz.js';
import { replyJson } from './reply.js';

const NESTING = 100_000;
const HUGE_BYTES = 200 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x20); // spaces: whitespace inside a JSON array

/**
 * Writes one hostile answer (see `MusicBrainzFailure` in fake-musicbrainz.ts for what each is and why) and
 * answers the status it sent. The huge body is written as the client reads it, so a client that stops reading at
 * its bound costs the fake nothing more.
 */
export async function answerHostile(req: IncomingMessage, res: ServerResponse, answer: HostileAnswer): Promise<number> {
  const json = { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' };
  switch (answer) {
    case 'retry-after-huge':
      replyJson(res, 503, { error: 'The MusicBrainz web server is currently busy. Please try again later.' }, { 'retry-after': '999999999', server: 'openresty' });
      return 503;
    case 'nested-json': {
      const body = `{"release-groups":${'['.repeat(NESTING)}${']'.repeat(NESTING)}}`;
      res.writeHead(200, { ...json, 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return 200;
    }
    case 'huge-body':
      res.writeHead(200, { ...json, 'content-length': HUGE_BYTES });
      await streamHuge(res);
      return 200;
    case 'cut-off-body':
      res.writeHead(200, { ...json, 'content-length': 10_000 });
      res.write('{"release-groups":[');
      // Flushed, then the connection goes: the client has fewer bytes than Content-Length promised.
      await new Promise<void>((resolve) => res.write('', () => resolve()));
      req.socket.destroy();
      return 200;
    case 'redirect-loop':
      res.writeHead(301, { ...json, location: `http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`, 'content-length': 0 });
      res.end();
      return 301;
    case 'file-redirect':
      res.writeHead(301, { ...json, location: 'file:///etc/passwd', 'content-length': 0 });
      res.end();
      return 301;
  }
}

/** `[` + spaces + `]` of HUGE_BYTES in all, stopping when the client closes the connection. */
async function streamHuge(res: ServerResponse): Promise<void> {
  let sent = 0;
  const write = (chunk: Buffer): Promise<boolean> =>
    new Promise((resolve) => {
      if (res.destroyed) return resolve(false);
      const ok = res.write(chunk);
      if (ok) return resolve(true);
      const done = (open: boolean) => {
        res.off('drain', onDrain);
        res.off('close', onClose);
        resolve(open);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      res.once('drain', onDrain);
      res.once('close', onClose);
    });
  if (!(await write(Buffer.from('[')))) return;
  sent = 1;
  while (sent < HUGE_BYTES - 1) {
    const chunk = HUGE_BYTES - 1 - sent >= CHUNK.length ? CHUNK : CHUNK.subarray(0, HUGE_BYTES - 1 - sent);
    if (!(await write(chunk))) return;
    sent += chunk.length;
  }
  res.end(']');
}
