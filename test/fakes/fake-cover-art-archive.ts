import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen-on-loopback.js';
import { generateMusicBrainzCatalogue, type MbRelease, type MusicBrainzCatalogue } from './musicbrainz-catalogue.js';
import { countRequestsTo, recordRequest } from './recorded-request.js';
import { replyText } from './reply.js';
import { solidJpeg } from './solid-jpeg.js';

/**
 * A real HTTP fake of the Cover Art Archive and the archive.org hops behind it, on one loopback port:
 * `/release…` answers as coverartarchive.org (307), `/download/…` as archive.org (302), `/storage/…` as an
 * archive.org storage node (the bytes). Behaviour per shared/reference/coverartarchive-api.md, sections named below.
 */
export interface FakeCoverArtArchiveOptions {
  readonly catalogue?: MusicBrainzCatalogue;
  /** Release groups whose releases have no front image (default: every fifth group of the catalogue). */
  readonly withoutArt?: (releaseGroupId: string) => boolean;
}

export interface AnsweredCoverRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

export interface FakeCoverArtArchive {
  readonly url: string;
  readonly catalogue: MusicBrainzCatalogue;
  readonly answered: readonly AnsweredCoverRequest[];
  /** Requests whose path starts with `prefix` (e.g. `/release-group/<mbid>`). */
  requestsTo(prefix: string): number;
  /** The bytes the storage node serves for a release group's front at `size` (`250`, `500`, `1200`, `original`). */
  imageOf(releaseGroupId: string, size: string): Buffer | undefined;
  /** The next `count` redirect-service requests answer 503 (the old docs' rate-limit answer, §1). */
  failNext(count: number): void;
  /**
   * From now on a release group's front (any size) answers 307 to `location` instead of to archive.org: the redirect
   * service then points wherever an attacker (or a hijacked mirror) wants, e.g. `http://169.254.169.254/…`.
   * Undefined restores the real three-hop chain (§1), the default.
   */
  redirectFrontsTo(location: string | undefined): void;
  close(): Promise<void>;
}

/** §2: `validate_mbid` accepts lower-case hex only. */
const MBID = /^[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$/;
const THUMBS = new Set(['250', '500', '1200']);

export async function startFakeCoverArtArchive(options: FakeCoverArtArchiveOptions = {}): Promise<FakeCoverArtArchive> {
  const catalogue = options.catalogue ?? generateMusicBrainzCatalogue();
  const groupIndex = new Map(catalogue.releaseGroups.map((group, index) => [group.id, index]));
  const withoutArt = options.withoutArt ?? ((id: string) => (groupIndex.get(id) ?? 0) % 5 === 4);
  const answered: AnsweredCoverRequest[] = [];
  let failures = 0;
  let frontLocation: string | undefined;

  /** §3: the earliest-dated release carries the group's cover; image ids exceed 32 bits (§4). */
  const chosenRelease = (groupId: string): { release: MbRelease; imageId: number; small: boolean } | undefined => {
    const group = catalogue.releaseGroup(groupId);
    if (!group || withoutArt(group.id)) return undefined;
    const release = [...group.releases].sort((a, b) => (a.date ?? '9999').localeCompare(b.date ?? '9999'))[0];
    const index = groupIndex.get(group.id) ?? 0;
    // §5: every third original is under 1200 px, so its 1200 thumbnail is missing on the storage node.
    return release && { release, imageId: 26_000_000_000 + index, small: index % 3 === 2 };
  };
  const releaseArt = (releaseId: string) => {
    const release = catalogue.release(releaseId);
    return release && chosenRelease(release.releaseGroupId)?.release.id === release.id ? chosenRelease(release.releaseGroupId) : undefined;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    const send = (status: number, body: string | Buffer, type: string, headers: Record<string, string> = {}): void => {
      answered.push({ method: request.method, path: request.path, status });
      // §1: every answer carries CORS; HEAD answers the headers alone.
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'access-control-allow-origin': '*', ...headers });
      res.end(request.method === 'HEAD' ? undefined : body);
    };
    const html = (status: number, title: string, text: string) => send(status, werkzeugPage(status, title, text), 'text/html; charset=utf-8');
    const redirect = (status: 302 | 307, location: string) => send(status, `See: ${location}\n`, 'text/plain; charset=utf-8', { location });

    if (request.method === 'OPTIONS') return send(200, '', 'text/plain; charset=utf-8', { allow: 'GET, HEAD, OPTIONS' });
    if (request.method !== 'GET' && request.method !== 'HEAD') return html(405, 'Method Not Allowed', 'The method is not allowed for the requested URL.');

    const storage = /^\/storage\/ia\d+\/items\/mbid-([0-9a-f-]{36})\/(.+)$/.exec(request.path);
    if (storage) return serveStorage(storage[1] ?? '', storage[2] ?? '');
    const download = /^\/download\/mbid-([0-9a-f-]{36})\/(.+)$/.exec(request.path);
    // §1: archive.org answers 302 to a storage node.
    if (download) return redirect(302, `http://127.0.0.1:${listener.port}/storage/ia800100/items/mbid-${download[1] ?? ''}/${download[2] ?? ''}`);

    const [, entity, id, rest] = /^\/([a-z-]+)\/([^/]+)\/?(.*)$/.exec(request.path) ?? [];
    if (entity !== 'release' && entity !== 'release-group') return replyCaa400('Only the following entities are supported: release, release-group');
    if (!MBID.test(id ?? '')) return replyCaa400('invalid MBID specified');
    if (failures > 0) {
      failures--;
      return send(503, 'Rate limit exceeded\n', 'text/plain; charset=utf-8');
    }
    const art = entity === 'release' ? releaseArt(id ?? '') : chosenRelease(id ?? '');
    const name = entity === 'release' ? 'release' : 'release group';
    if (rest === '') {
      if (!art) return html(404, 'Not Found', `No cover art found for ${name} ${id ?? ''}`);
      return redirect(307, archiveUrl(art.release.id, 'index.json'));
    }
    const [, side, size] = /^(front|back)(?:-([a-z0-9]+))?(?:\.jpg)?$/.exec(rest ?? '') ?? [];
    if (entity === 'release-group' && side !== 'front') return send(400, `${rest?.split(/[-.]/)[0] ?? ''} not supported for release groups.`, 'text/plain; charset=utf-8');
    if (!side || side === 'back' || !art) {
      return html(404, 'Not Found', entity === 'release' ? `No ${side ?? 'front'} cover image found for release with identifier ${id ?? ''}` : `No cover art found for release group ${id ?? ''}`);
    }
    // A 307 with the same `See: <url>` body as the real redirect (§2), to a Location of the test's choosing.
    if (entity === 'release-group' && frontLocation !== undefined) return redirect(307, frontLocation);
    // §2: thumbnails are always .jpg; an unknown size suffix redirects to the original.
    const file = `mbid-${art.release.id}-${art.imageId}${size && THUMBS.has(size) ? `_thumb${size}` : ''}.jpg`;
    return redirect(307, archiveUrl(art.release.id, file));

    function replyCaa400(text: string): void {
      html(400, 'Bad Request', text);
    }

    function serveStorage(releaseId: string, file: string): void {
      const release = catalogue.release(releaseId);
      const art = release ? chosenRelease(release.releaseGroupId) : undefined;
      if (!release || !art) return html(404, 'Not Found', 'Item not found');
      if (file === 'index.json') return send(200, indexJson(releaseId, art.imageId), 'application/json; charset=utf-8');
      const match = new RegExp(`^mbid-${releaseId}-${art.imageId}(?:_thumb(250|500|1200))?\\.jpg$`).exec(file);
      const bytes = match ? imageOf(release.releaseGroupId, match[1] ?? 'original') : undefined;
      if (!bytes) return html(404, 'Not Found', 'File not found');
      send(200, bytes, 'image/jpeg', { 'cache-control': 'max-age=31536000' });
    }
  };

  const imageOf = (groupId: string, size: string): Buffer | undefined => {
    const art = chosenRelease(groupId);
    if (!art) return undefined;
    const side = size === 'original' ? (art.small ? 900 : 1400) : Number(size);
    if (!THUMBS.has(size) && size !== 'original') return undefined;
    if (size === '1200' && art.small) return undefined;
    return solidJpeg(side, side, `${art.imageId} ${size}`);
  };
  const archiveUrl = (releaseId: string, file: string) => `http://127.0.0.1:${listener.port}/download/mbid-${releaseId}/${file}`;

  const listener = await listenOnLoopback(handle);
  return {
    url: listener.origin,
    catalogue,
    answered,
    requestsTo: (prefix) => countRequestsTo(answered, prefix),
    imageOf,
    failNext(count) {
      failures += count;
    },
    redirectFrontsTo(location) {
      frontLocation = location;
    },
    close: () => listener.close(),
  };
}

/** §2: Werkzeug's default error page. */
function werkzeugPage(status: number, title: string, text: string): string {
  return `<!doctype html>\n<html lang=en>\n<title>${status} ${title}</title>\n<h1>${title}</h1>\n<p>${text}</p>\n`;
}

/** §4: sorted keys, an integer id, `http://` URLs, numeric and named thumbnail keys. */
function indexJson(releaseId: string, imageId: number): string {
  const base = `http://coverartarchive.org/release/${releaseId}/${imageId}`;
  return JSON.stringify({
    images: [{
      approved: true, back: false, comment: '', edit: 69681264, front: true, id: imageId, image: `${base}.jpg`,
      thumbnails: { '1200': `${base}-1200.jpg`, '250': `${base}-250.jpg`, '500': `${base}-500.jpg`, large: `${base}-500.jpg`, small: `${base}-250.jpg` },
      types: ['Front'],
    }],
    release: `https://musicbrainz.org/release/${releaseId}`,
  });
}
