import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readPluginEntries } from '../helpers/read-stored.js';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { LibraryAlbum, Type, type Static, type TSchema } from '@crateflow/sdk';
import { assertRecord, RecordingLogger, type LogEntry } from '@crateflow/sdk/testing';
import { startApp, type StartedApp } from '../helpers/start-app.js';

// Small misbehaving plugins, loaded the way a user loads a third-party plugin: `plugins: [{ use: <path> }]`,
// with paths relative to the config folder.
const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'plugins');
const plugin = (file: string, config: Record<string, unknown> = {}) => ({ use: `./${file}`, config });

async function start(plugins: ReturnType<typeof plugin>[], extra: Record<string, unknown> = {}, log = new RecordingLogger()): Promise<StartedApp> {
  return startApp({ config: { plugins, ...extra }, configDir: fixtures, log });
}

// Just the parts of the API's answers these tests read.
const Added = Type.Object({ items: Type.Array(Type.Object({ id: Type.String() })) });
const JobView = Type.Object({ id: Type.String(), status: Type.String(), summary: Type.Record(Type.String(), Type.Number()), error: Type.Optional(Type.String()) });
const PluginList = Type.Object({ items: Type.Array(Type.Object({ name: Type.String(), healthy: Type.Boolean(), last_error: Type.Optional(Type.String()) })) });
const Health = Type.Object({ plugins: Type.Optional(Type.Array(Type.Object({ name: Type.String() }))) });
const Downloads = Type.Object({ items: Type.Array(Type.Object({ progress: Type.Number(), error: Type.Optional(Type.String()) })) });
const Library = Type.Object({ items: Type.Array(LibraryAlbum) });

async function get<S extends TSchema>(app: StartedApp, path: string, schema: S, init?: RequestInit): Promise<Static<S>> {
  const res = await fetch(`${app.baseUrl}${path}`, init);
  const body: unknown = await res.json();
  assertRecord(schema, body, `${init?.method ?? 'GET'} ${path} (status ${res.status})`);
  return body;
}

async function addCandidate(app: StartedApp, album: string): Promise<string> {
  const body = await get(app, '/api/v1/queue', Added, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ artist: 'Low', album, source: 'test' }),
  });
  const id = body.items[0]?.id;
  assert.ok(id);
  return id;
}

// A liveness bound, not a speed test: a niced run beside a full one on 2 cores took over 5 s for a sync job.
async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts a library sync over HTTP and waits until its job has finished, so nothing writes after close(). */
async function syncLibrary(app: StartedApp): Promise<Static<typeof JobView>> {
  const { job } = await get(app, '/api/v1/library/sync', Type.Object({ job: JobView }), { method: 'POST' });
  return waitFor('the sync job to finish', async () => {
    const current = await get(app, `/api/v1/jobs/${job.id}`, JobView);
    return current.status === 'running' ? undefined : current;
  });
}

const sinkFailure = (log: RecordingLogger, sink: string): LogEntry | undefined =>
  log.at('warn').find((e) => e.fields.sink === sink && e.msg.includes('event sink failed'));

async function pluginStorage(dataDir: string, name: string): Promise<Record<string, unknown>> {
  return readPluginEntries(dataDir, name).catch(() => ({})); // nothing stored yet: the plugin has not written
}

describe('plugin failure isolation', () => {
  it('refuses to start when a plugin throws in create(), naming the plugin and the cause', async () => {
    // Reported like every config problem: at the plugin entry, naming the plugin.
    await assert.rejects(start([plugin('throws-in-create.ts')]), /plugins\[0\]\S*: config file for the sink is missing \(throws-in-create\)/);
  });

  it('refuses to start when a plugin throws in start(), naming the plugin and the cause', async () => {
    await assert.rejects(start([plugin('throws-in-start.ts')]), /plugin "throws-in-start" failed in start: cannot reach the notification service/);
  });

  it('refuses to start when create() returns an object without the members of its kind', async () => {
    await assert.rejects(start([plugin('returns-malformed-instance.ts')]), /plugin "returns-malformed-instance": create\(\) returned an object without deliver/);
  });

  it('refuses to start when a plugin\'s config schema cannot be compiled, naming the plugin entry and the mistake', async () => {
    await assert.rejects(start([plugin('unusable-config-schema.ts')]), (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /plugins\[0\]\.use: plugin "unusable-config-schema": manifest\.configSchema is not a usable schema: strict mode: unknown keyword: "propertiez"/);
      return true;
    });
  });

  it('keeps serving and delivering to other sinks while one sink throws on every event, logging its name', async (t) => {
    const log = new RecordingLogger();
    const app = await start([plugin('flaky-sink.ts', { mode: 'throw' }), plugin('recording-sink.ts')], {}, log);
    t.after(() => app.close());
    const id = await addCandidate(app, 'Double Negative');
    const failure = await waitFor('the failure log of flaky-sink', () => sinkFailure(log, 'flaky-sink'));
    assert.match(String(failure.fields.err), /plugin "flaky-sink" failed in deliver: cannot read properties of undefined/);
    await waitFor('recording-sink to store the event', async () => Object.keys(await pluginStorage(app.dataDir, 'recording-sink')).find((k) => k.startsWith('delivered/')));
    const pending = await fetch(`${app.baseUrl}/api/v1/queue/pending`);
    assert.equal(pending.status, 200);
    assert.match(await pending.text(), new RegExp(id));
    assert.equal((await fetch(`${app.baseUrl}/health`)).status, 200, 'a failing sink must not fail the liveness probe');
    const health = await get(app, '/health', Health);
    // flaky-sink is named; under heavy load another plugin may also miss the probe's 500 ms budget and be listed.
    assert.ok(health.plugins?.some((p) => p.name === 'flaky-sink'), JSON.stringify(health.plugins));
  });

  it('gives up on a sink that never answers after sink_timeout_ms, names it, and keeps serving', async (t) => {
    const log = new RecordingLogger();
    const app = await start([plugin('flaky-sink.ts', { mode: 'hang' })], { events: { sink_timeout_ms: 100 } }, log);
    t.after(() => app.close());
    const started = Date.now();
    await addCandidate(app, 'Things We Lost in the Fire');
    assert.ok(Date.now() - started < 1000, 'adding to the queue must not wait for the sink');
    const failure = await waitFor('the timeout log of flaky-sink', () => sinkFailure(log, 'flaky-sink'));
    assert.match(String(failure.fields.err), /plugin "flaky-sink" failed in deliver: no answer within 100 ms/);
    const plugins = await get(app, '/api/v1/plugins', PluginList);
    const flaky = plugins.items.find((p) => p.name === 'flaky-sink');
    assert.equal(flaky?.healthy, false);
    assert.match(flaky.last_error ?? '', /no answer within 100 ms/);
  });

  it('keeps an undelivered event across a restart and delivers it once the sink works again', async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-isolation-'));
    const running: StartedApp[] = [];
    // Apps first, then their shared data dir (after() hooks run in registration order).
    t.after(async () => {
      for (const app of running) await app.close();
      await rm(dataDir, { recursive: true, force: true });
    });
    const log = new RecordingLogger();
    const first = await start([plugin('flaky-sink.ts', { mode: 'throw' })], { storage: { dir: dataDir } }, log);
    running.push(first);
    const itemId = await addCandidate(first, 'Ones and Sixes');
    await waitFor('the first failure', () => sinkFailure(log, 'flaky-sink'));
    await first.close();

    const second = await start([plugin('flaky-sink.ts', { mode: 'work' })], { storage: { dir: dataDir } });
    running.push(second);
    const delivered = await waitFor('the event to reach flaky-sink after the restart', async () => {
      const entries = await pluginStorage(dataDir, 'flaky-sink');
      return Object.keys(entries).length > 0 ? entries : undefined;
    });
    assert.deepEqual(Object.values(delivered), ['queue_added']);
    const pending = await (await fetch(`${second.baseUrl}/api/v1/queue/pending`)).text();
    assert.match(pending, new RegExp(itemId), 'the queue item stored before the failures is still there');
  });

  it('answers the operator view when a plugin health() never answers, marking that plugin unhealthy', async (t) => {
    const app = await start([plugin('hangs-in-health.ts')]);
    t.after(() => app.close());
    const started = Date.now();
    const body = await get(app, '/api/v1/plugins', PluginList);
    assert.ok(Date.now() - started < 4500, 'the health deadline bounds the answer time');
    const hanging = body.items.find((p) => p.name === 'hangs-in-health');
    assert.equal(hanging?.healthy, false);
    assert.match(hanging.last_error ?? '', /plugin "hangs-in-health" failed in health: no answer within/);
  });

  it('keeps a download and its wishlist item when the client reports malformed status, naming the plugin', async (t) => {
    const app = await start([plugin('malformed-downloads.ts')], { download_client: { type: 'malformed-downloads', poll_interval: '200ms' } });
    t.after(() => app.close());
    const id = await addCandidate(app, 'The Curtain Hits the Cast');
    const approved = await fetch(`${app.baseUrl}/api/v1/queue/${id}/approve`, { method: 'POST' });
    assert.equal(approved.status, 200, await approved.clone().text());
    const download = await waitFor('the malformed status to be recorded', async () => {
      const list = await get(app, '/api/v1/downloads', Downloads);
      return list.items.find((d) => d.error?.includes('malformed'));
    });
    assert.match(download.error ?? '', /plugin "malformed-downloads" returned a malformed status/);
    assert.equal(download.progress, 0, 'the nonsense progress is never stored');
    const health = await get(app, '/health', Health);
    assert.ok(health.plugins?.some((p) => p.name === 'malformed-downloads'), JSON.stringify(health.plugins));
  });

  it('skips malformed albums from a library backend and logs how many, naming the plugin', async (t) => {
    const log = new RecordingLogger();
    const app = await start([plugin('malformed-library.ts', { shape: 'bad-album' })], { library: { type: 'malformed-library' } }, log);
    t.after(() => app.close());
    const job = await syncLibrary(app);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal(job.summary.skipped, 1);
    const skipped = log.at('warn').find((e) => e.fields.plugin === 'malformed-library');
    assert.equal(skipped?.fields.malformed, 1);
    const library = await get(app, '/api/v1/library', Library);
    assert.deepEqual(library.items, [{ artist: 'Low', album: 'Double Negative' }]);
  });

  it('fails the sync of a library backend that yields a non-array page, naming the plugin and keeping the server up', async (t) => {
    const log = new RecordingLogger();
    const app = await start([plugin('malformed-library.ts', { shape: 'not-an-array' })], { library: { type: 'malformed-library' } }, log);
    t.after(() => app.close());
    const job = await syncLibrary(app);
    assert.equal(job.status, 'failed');
    assert.match(String(job.error), /plugin "malformed-library" failed in albums/);
    const failure = log.at('error').find((e) => e.msg.includes('library sync failed'));
    assert.ok(failure);
    assert.match(String(failure.fields.err), /plugin "malformed-library" failed in albums: albums\(\) yielded something that is not an array/);
    assert.equal((await fetch(`${app.baseUrl}/health`)).status, 200);
  });
});
