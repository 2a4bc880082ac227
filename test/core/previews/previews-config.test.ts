import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Previews } from '../../../core/previews/previews.schema.js';
import { PreviewService } from '../../../core/previews/preview-service.js';
import { api, eventually } from '../../helpers/api-client.js';
import { startApp } from '../../helpers/start-app.js';

/**
 * A preview provider in plain JavaScript (nothing installed): two previews of any album on a CDN of its own, and one
 * track on a host it does not list, which the server must drop.
 */
const providerModule = `export default {
  manifest: { name: 'preview-own', kind: 'preview', apiVersion: 1, configSchema: { type: 'object' } },
  create: () => ({
    origins: ['https://previews.example.com'],
    async findPreviews({ artist, album }) {
      return [
        { title: album + ' one', artist, position: 1, preview_url: 'https://previews.example.com/1.mp3', source: 'own' },
        { title: album + ' two', artist, position: 2, preview_url: 'https://previews.example.com/2.mp3', source: 'own' },
        { title: 'elsewhere', artist, preview_url: 'https://cdn.elsewhere.example.net/3.mp3', source: 'own' },
        { title: 'malformed', preview_url: 'https://previews.example.com/4.mp3' },
      ];
    },
  }),
};
`;

/** A provider that never answers until the server shuts down (its signal aborts). */
const stuckProviderModule = `export default {
  manifest: { name: 'preview-stuck', kind: 'preview', apiVersion: 1, configSchema: { type: 'object' } },
  create: () => ({
    origins: ['https://previews.example.com'],
    findPreviews: ({ signal }) => new Promise((resolve, reject) => signal.addEventListener('abort', () => reject(new Error('shutting down')))),
  }),
};
`;

describe('previews config', () => {
  it('stops the start naming previews.type for an unknown provider', async () => {
    await assert.rejects(startApp({ config: { previews: { type: 'spotify' } } }), /previews\.type: unknown type "spotify": must be one of "deezer", "none"/);
  });

  it('stops the start naming the key and the plugin for a bad Deezer setting', async () => {
    await assert.rejects(startApp({ config: { previews: { url: 'ftp://api.deezer.com' } } }), /previews\.url: .*\(preview-deezer\)/);
  });

  it('uses a plugins: entry of kind preview named by previews.type, keeping only valid tracks from its origins', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-preview-plugin-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'preview-own.mjs'), providerModule);
    const app = await startApp({ configDir: dir, config: { previews: { type: 'preview-own' }, plugins: [{ use: './preview-own.mjs' }] } });
    t.after(() => app.close());
    const res = await api<Previews>(app.baseUrl, 'GET', '/api/v1/previews?artist=Low&album=Secret%20Name');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.source, 'preview-own');
    assert.deepEqual(res.body.tracks.map((track) => track.title), ['Secret Name one', 'Secret Name two']);
    const page = await fetch(`${app.baseUrl}/queue`, { headers: { accept: 'text/html' } });
    assert.match(page.headers.get('content-security-policy') ?? '', /(^|; )media-src 'self' https:\/\/previews\.example\.com(;|$)/);
  });

  it('looks up at most 4 albums at once with 16 waiting, and answers 503 with Retry-After to one more', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-preview-plugin-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'preview-stuck.mjs'), stuckProviderModule);
    const app = await startApp({ configDir: dir, config: { previews: { type: 'preview-stuck' }, plugins: [{ use: './preview-stuck.mjs' }] } });
    t.after(() => app.close());
    const ask = (n: number) => api(app.baseUrl, 'GET', `/api/v1/previews?artist=Low&album=Album%20${n}`);
    const held = Array.from({ length: 20 }, (_, n) => ask(n));
    const service = app.crateflow.container.resolve(PreviewService);
    await eventually(() => (service.load.running === 4 && service.load.waiting === 16 ? true : undefined), 10_000, '4 lookups running and 16 waiting');
    const refused = await ask(20);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '1');
    await app.close();
    // Shutting down aborts the provider's signal: every held request settles (503), none hangs.
    assert.ok((await Promise.all(held)).every((res) => res.status === 503));
  });
});
