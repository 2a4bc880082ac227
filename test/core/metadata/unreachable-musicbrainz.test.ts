import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../helpers/manual-clock.js';
import { startApp } from '../../helpers/start-app.js';

// startApp points MusicBrainz at the discard port of loopback, where nothing listens: every connection is refused.
// The clock is manual and never moves, so an answer that waited on a backoff would never come.
describe('MusicBrainz that refuses the connection', () => {
  for (const path of ['/api/v1/search?q=low', '/api/v1/previews?mbid=0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f', '/api/v1/release-groups/0e9b3b0a-6b3e-4a8f-9d3c-1c2b3a4d5e6f']) {
    it(`answers ${path.split('?')[0]} with 503 and Retry-After at once, without backing off`, async (t) => {
      const app = await startApp({ clock: new ManualClock() });
      t.after(() => app.close());
      // A liveness bound only: before, the request backed off 1 + 2 + 4 s on the clock (here: for ever).
      const res = await fetch(`${app.baseUrl}${path}`, { signal: AbortSignal.timeout(30_000) });
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.equal(res.headers.get('retry-after'), '30');
      const problem: unknown = await res.json();
      assert.match(JSON.stringify(problem), /cannot be reached|unreachable|ECONNREFUSED/i);
    });
  }
});
