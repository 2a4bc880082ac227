import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startApp } from '../../helpers/start-app.js';
import { api } from '../../helpers/api-client.js';

describe('GET /api/v1/events/stream', () => {
  it('relays committed events as server-sent events and ends the stream on shutdown', async () => {
    // A stream that held up shutdown would keep it waiting for the whole shutdown timeout (the maximum here).
    const shutdownTimeoutMs = 120_000;
    const app = await startApp({ config: { server: { shutdown_timeout_ms: shutdownTimeoutMs } } });
    const res = await fetch(`${app.baseUrl}/api/v1/events/stream`);
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    const reader = res.body?.getReader();
    assert.ok(reader);
    await api(app.baseUrl, 'POST', '/api/v1/queue', { artist: 'Can', album: 'Ege Bamyasi' });
    let text = '';
    while (!/event: queue_added[\s\S]*\n\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    assert.match(text, /event: queue_added\nid: \S+\ndata: \{.*"artist":"Can".*\}\n\n/);
    const started = Date.now();
    await app.close();
    // Half the timeout: a liveness bound that a loaded machine cannot break, and a held-up shutdown cannot pass.
    assert.ok(Date.now() - started < shutdownTimeoutMs / 2, 'an open stream does not hold up shutdown');
    for (;;) if ((await reader.read()).done) break;
  });
});
