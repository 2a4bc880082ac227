import { createHttpClient, isHttpRequestError } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listenOnLoopback } from '../fakes/listen-on-loopback.js';

/**
 * A server that resets every kept-alive connection when its second request arrives, before answering: what a
 * client meets when the server's idle timeout closes a connection just as a request goes out on it.
 */
async function resettingServer(t: { after(fn: () => Promise<void>): void }): Promise<{ origin: string; seen: string[] }> {
  const seen: string[] = [];
  const requestsOn = new WeakMap<object, number>();
  const server = await listenOnLoopback(async (req, res) => {
    const count = (requestsOn.get(req.socket) ?? 0) + 1;
    requestsOn.set(req.socket, count);
    seen.push(`${req.method} ${req.url} #${count}`);
    if (count > 1) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
    res.end('ok');
  });
  t.after(() => server.close());
  return { origin: server.origin, seen };
}

describe('createHttpClient on a kept-alive connection the server resets', () => {
  it('sends a GET once more on a fresh connection, and gets its answer', async (t) => {
    const { origin, seen } = await resettingServer(t);
    const http = createHttpClient({ userAgent: 'crateflow-test', connectionsPerOrigin: 1 });
    t.after(() => http.close());
    assert.equal((await http.request({ url: `${origin}/a` })).text(), 'ok');
    assert.equal((await http.request({ url: `${origin}/b` })).text(), 'ok');
    assert.deepEqual(seen, ['GET /a #1', 'GET /b #2', 'GET /b #1']);
  });

  it('never sends a POST twice: the reset is the caller\'s to handle', async (t) => {
    const { origin, seen } = await resettingServer(t);
    const http = createHttpClient({ userAgent: 'crateflow-test', connectionsPerOrigin: 1 });
    t.after(() => http.close());
    await http.request({ url: `${origin}/a` });
    await assert.rejects(http.request({ url: `${origin}/b`, method: 'POST', body: 'x' }), (err: unknown) => isHttpRequestError(err) && err.reason === 'network');
    assert.deepEqual(seen, ['GET /a #1', 'POST /b #2']);
  });
});
