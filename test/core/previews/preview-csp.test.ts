import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startFakeDeezer } from '../../fakes/fake-deezer.js';
import { startApp } from '../../helpers/start-app.js';

/** The Content-Security-Policy of the UI shell, as directive name → its sources. */
async function policyOf(baseUrl: string): Promise<Map<string, string[]>> {
  const res = await fetch(`${baseUrl}/queue`, { headers: { accept: 'text/html' } });
  assert.equal(res.status, 200);
  const header = res.headers.get('content-security-policy') ?? '';
  return new Map(header.split(';').map((directive) => directive.trim().split(/\s+/)).map(([name = '', ...sources]) => [name, sources]));
}

describe('the UI Content-Security-Policy for previews', () => {
  it('allows media from the page and exactly the configured provider\'s origins, and widens nothing else', async (t) => {
    const deezer = await startFakeDeezer({ quota: false });
    t.after(() => deezer.close());
    const app = await startApp({ config: { previews: { url: deezer.url, preview_origins: [deezer.cdnUrl] } } });
    t.after(() => app.close());
    const policy = await policyOf(app.baseUrl);
    assert.deepEqual(policy.get('media-src'), ["'self'", deezer.cdnUrl]);
    assert.deepEqual(policy.get('default-src'), ["'none'"]);
    assert.deepEqual(policy.get('connect-src'), ["'self'"], 'the page still talks to Crateflow only; Deezer is asked by the server');
  });

  it('lists Deezer\'s preview CDN by default', async (t) => {
    const app = await startApp();
    t.after(() => app.close());
    assert.deepEqual((await policyOf(app.baseUrl)).get('media-src'), ["'self'", 'https://*.dzcdn.net']);
  });

  it('allows media from the page only when previews are switched off', async (t) => {
    const app = await startApp({ config: { previews: { type: 'none' } } });
    t.after(() => app.close());
    assert.deepEqual((await policyOf(app.baseUrl)).get('media-src'), ["'self'"]);
  });

  it('refuses to start with a preview origin that is not a plain origin, naming the key', async () => {
    await assert.rejects(startApp({ config: { previews: { preview_origins: ["https://cdn.example.com; script-src *"] } } }), /previews\.preview_origins\[0\]/);
  });
});
