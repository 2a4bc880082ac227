import { createHttpClient, isHttpRequestError } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listenOnLoopback } from '../fakes/listen-on-loopback.js';

const nested = (depth: number): string => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

/** A server that answers each path's body as JSON: a stand-in for any upstream a plugin asks. */
async function serve(t: { after(fn: () => Promise<void>): void }, bodies: Record<string, string | Buffer>): Promise<string> {
  const server = await listenOnLoopback(async (req, res) => {
    const body = bodies[req.url ?? ''] ?? '{}';
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  t.after(() => server.close());
  return server.origin;
}

describe('HttpResponse.json()', () => {
  it('parses JSON nested 64 levels deep and refuses 65 (or 100,000) with a SyntaxError naming the URL, before parsing', async (t) => {
    const origin = await serve(t, { '/64': nested(64), '/65': nested(65), '/deep': nested(100_000) });
    const http = createHttpClient({ userAgent: 'crateflow-test' });
    t.after(() => http.close());
    assert.deepEqual(Object.keys((await http.request({ url: `${origin}/64` })).json() ?? {}), ['a']);
    for (const path of ['/65', '/deep']) {
      const res = await http.request({ url: `${origin}${path}` });
      assert.throws(() => res.json(), (err: unknown) => err instanceof SyntaxError && err.message.includes(`${origin}${path}`) && /deeper than 64 levels/.test(err.message));
    }
  });

  it('counts no bracket inside a string, escaped quotes included', async (t) => {
    const text = JSON.stringify({ title: `${'['.repeat(200)} "quoted \\" [[ ${'{'.repeat(200)}`, list: [[['x']]] });
    const origin = await serve(t, { '/strings': text });
    const http = createHttpClient({ userAgent: 'crateflow-test' });
    t.after(() => http.close());
    assert.deepEqual((await http.request({ url: `${origin}/strings` })).json(), JSON.parse(text));
  });

  it('cuts a body past the default 8 MiB bound off with response-too-large', async (t) => {
    const origin = await serve(t, { '/big': Buffer.alloc(8 * 1024 * 1024 + 1, 0x20) });
    const http = createHttpClient({ userAgent: 'crateflow-test' });
    t.after(() => http.close());
    await assert.rejects(http.request({ url: `${origin}/big` }), (err: unknown) => isHttpRequestError(err) && err.reason === 'response-too-large');
  });
});
