import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../../core/logging/create-logger.js';
import { eventually } from '../../helpers/api-client.js';
import { startApp } from '../../helpers/start-app.js';

/** The access-log lines an app writes, parsed. */
function capturedLog(): { stream: Writable; lines: { level: number; path?: string; status?: number; msg?: string }[] } {
  const lines: { level: number; path?: string; status?: number; msg?: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(text));
      done();
    },
  });
  return { stream, lines };
}

describe('the access log', () => {
  it('logs a 503 with Retry-After (an upstream that cannot be reached) as a warning, not an error', async (t) => {
    const { stream, lines } = capturedLog();
    // startApp points MusicBrainz at a closed loopback port: search answers 503 upstream-unavailable with Retry-After.
    const app = await startApp({ log: createLogger('info', stream) });
    t.after(() => app.close());
    const res = await fetch(`${app.baseUrl}/api/v1/search?q=low`);
    assert.equal(res.status, 503);
    assert.ok(res.headers.get('retry-after'));
    const line = await eventually(() => lines.find((l) => l.msg === 'request' && l.path === '/api/v1/search'), 10_000, 'the access-log line');
    assert.deepEqual([line.status, line.level], [503, 40], 'pino level 40 is warn');
    assert.equal(lines.filter((l) => l.level >= 50).length, 0, 'no error was logged');
  });
});
