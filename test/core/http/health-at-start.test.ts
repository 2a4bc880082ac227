import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { listenOnLoopback } from '../../fakes/listen-on-loopback.js';
import { startApp } from '../../helpers/start-app.js';

interface HealthBody {
  status: string;
  plugins?: Array<{ name: string; kind: string; error: string }>;
}

async function health(baseUrl: string): Promise<{ status: number; body: HealthBody }> {
  const response = await fetch(`${baseUrl}/health`);
  const body: unknown = await response.json();
  assert.ok(typeof body === 'object' && body !== null && 'status' in body && typeof body.status === 'string', JSON.stringify(body));
  const plugins: unknown = Reflect.get(body, 'plugins');
  return { status: response.status, body: { status: body.status, ...(Array.isArray(plugins) ? { plugins } : {}) } };
}

/** A loopback port that was free a moment ago and has nobody listening now. */
async function closedPort(): Promise<number> {
  const server = await listenOnLoopback(async (_req, res) => {
    res.end();
  });
  await server.close();
  return server.port;
}

describe('GET /health right after start-up', () => {
  it('reports degraded with the library plugin when the library folder is missing, before any sync ran', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-health-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const app = await startApp({ config: { library: { type: 'filesystem', path: join(dir, 'not-mounted') } } });
    t.after(app.close);
    const { status, body } = await health(app.baseUrl);
    assert.equal(status, 200, 'a backend outage is not a reason to restart the service');
    assert.equal(body.status, 'degraded');
    assert.deepEqual(body.plugins?.map((p) => [p.name, p.kind]), [['library-filesystem', 'library']]);
    assert.match(body.plugins?.[0]?.error ?? '', /not-mounted/);
  });

  it('reports degraded with the download client when slskd is unreachable at start', async (t) => {
    const music = await mkdtemp(join(tmpdir(), 'crateflow-health-music-'));
    t.after(() => rm(music, { recursive: true, force: true }));
    const app = await startApp({
      config: {
        download_client: { type: 'slskd', url: `http://127.0.0.1:${await closedPort()}`, api_key: 'slskd-key-for-the-health-test', downloads_dir: music },
        library: { type: 'filesystem', path: music },
      },
    });
    t.after(app.close);
    const { body } = await health(app.baseUrl);
    assert.equal(body.status, 'degraded');
    assert.deepEqual(body.plugins?.map((p) => p.name), ['download-slskd']);
  });

  it('reports ok when every plugin is healthy', async (t) => {
    const music = await mkdtemp(join(tmpdir(), 'crateflow-health-music-'));
    t.after(() => rm(music, { recursive: true, force: true }));
    const app = await startApp({ config: { library: { type: 'filesystem', path: music } } });
    t.after(app.close);
    assert.deepEqual(await health(app.baseUrl), { status: 200, body: { status: 'ok' } });
  });
});
