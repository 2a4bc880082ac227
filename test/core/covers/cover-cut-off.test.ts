import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listenOnLoopback } from '../../fakes/listen-on-loopback.js';
import { api } from '../../helpers/api-client.js';
import { startMetadataApp } from '../metadata/metadata-test-app.js';

describe('GET /api/v1/covers/:mbid from an archive that cuts its answer off', () => {
  it('answers 503 upstream-unavailable with Retry-After, not 500, and stores nothing', async (t) => {
    // An archive that promises a JPEG of 10,000 bytes, sends its first bytes, and closes the connection (issue #27).
    const archive = await listenOnLoopback(async (req, res) => {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': 10_000 });
      res.write(Buffer.from([0xff, 0xd8, 0xff, 0xe0]));
      await new Promise<void>((resolve) => res.write('', () => resolve()));
      req.socket.destroy();
    });
    t.after(() => archive.close());
    const { app, album } = await startMetadataApp(t, { metadata: { coverartarchive: { url: archive.origin } } });
    for (let asked = 0; asked < 2; asked++) {
      const res = await api<{ type: string }>(app.baseUrl, 'GET', `/api/v1/covers/${album.id}`);
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.equal(res.body.type, 'urn:crateflow:problem:upstream-unavailable');
      assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    }
  });
});
