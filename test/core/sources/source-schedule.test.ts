import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { api, eventually } from '../../helpers/api-client.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { candidate, SCRIPTED_SOURCE, sourceFiles } from './source-fixture.js';

interface Job {
  id: string;
  status: string;
  trigger: string;
  error?: string;
  retry_at?: string;
  summary: Record<string, number>;
}
interface SourceView {
  name: string;
  running: Job | null;
  last_run: Job | null;
  next_run_at: string | null;
}

const HOUR = 3_600_000;

async function sourceView(app: StartedApp, name: string): Promise<SourceView> {
  const { body } = await api<{ items: SourceView[] }>(app.baseUrl, 'GET', '/api/v1/sources');
  const view = body.items.find((s) => s.name === name);
  assert.ok(view, `no source ${name}`);
  return view;
}

/** The source's latest run once it has ended and the next one is planned (the schedule plans it as the run ends). */
async function endedRun(app: StartedApp, name: string, notId?: string): Promise<SourceView & { last_run: Job }> {
  return eventually(async () => {
    const view = await sourceView(app, name);
    const last = view.last_run;
    if (!last || last.status === 'running' || last.id === notId || view.running || view.next_run_at === null) return undefined;
    return { ...view, last_run: last };
  }, 10_000, `a run of ${name} to end`);
}

describe('source schedule', () => {
  it('runs a scheduled source that never ran once the server listens, then every schedule', async (t) => {
    const clock = new ManualClock();
    const files = await sourceFiles({ candidates: [candidate('Autechre', 'Amber', '1')] });
    const app = await startApp({ clock, config: { sources: [{ name: 'hourly', use: SCRIPTED_SOURCE, schedule: '1h', ...files.config }] } });
    t.after(async () => {
      await app.close();
      await files.remove();
    });
    const first = await endedRun(app, 'hourly');
    assert.equal(first.last_run.status, 'completed', first.last_run.error);
    assert.equal(first.last_run.trigger, 'schedule');
    assert.equal(first.last_run.summary.added, 1);
    assert.equal(first.next_run_at, new Date(clock.now() + HOUR).toISOString());

    await clock.advance(HOUR);
    const second = await endedRun(app, 'hourly', first.last_run.id);
    assert.equal(second.last_run.status, 'completed');
    assert.deepEqual(second.last_run.summary, { added: 0, duplicate: 1, owned: 0, rejected_before: 0, invalid: 0 });
    const starts = (await files.calls()).filter((c) => c.event === 'start');
    assert.equal(starts.length, 2);
    assert.equal(starts[1]?.last_completed_at, new Date(clock.now() - HOUR).toISOString());
  });

  it('does not run a manual source by itself, nor a disabled one', async (t) => {
    const clock = new ManualClock();
    const manual = await sourceFiles({ candidates: [] });
    const disabled = await sourceFiles({ candidates: [] });
    const app = await startApp({
      clock,
      config: {
        sources: [
          { name: 'by-hand', use: SCRIPTED_SOURCE, schedule: 'manual', ...manual.config },
          { name: 'off', use: SCRIPTED_SOURCE, schedule: '1h', enabled: false, ...disabled.config },
        ],
      },
    });
    t.after(async () => {
      await app.close();
      await manual.remove();
      await disabled.remove();
    });
    await clock.advance(3 * HOUR);
    for (const name of ['by-hand', 'off']) {
      const view = await sourceView(app, name);
      assert.equal(view.last_run, null, name);
      assert.equal(view.next_run_at, null, name);
    }
    assert.deepEqual(await manual.calls(), []);
    assert.deepEqual(await disabled.calls(), []);
  });

  it('fails the job with the source\'s message, no stack, and runs again at the next interval', async (t) => {
    const clock = new ManualClock();
    const files = await sourceFiles({ fail: 'the listening history is private' });
    const app = await startApp({ clock, config: { sources: [{ name: 'broken', use: SCRIPTED_SOURCE, schedule: '6h', ...files.config }] } });
    t.after(async () => {
      await app.close();
      await files.remove();
    });
    const view = await endedRun(app, 'broken');
    assert.equal(view.last_run.status, 'failed');
    assert.equal(view.last_run.error, 'the listening history is private');
    const job = await api<Record<string, unknown>>(app.baseUrl, 'GET', `/api/v1/jobs/${view.last_run.id}`);
    assert.doesNotMatch(JSON.stringify(job.body), /\bat .*\.ts:\d+/);
    assert.equal(view.next_run_at, new Date(clock.now() + 6 * HOUR).toISOString());
  });

  it('runs a source that asked to be retried later (RetryLaterError) at that time, then on its schedule', async (t) => {
    const clock = new ManualClock();
    const files = await sourceFiles({ fail: 'ListenBrainz is down for maintenance', retry_after_ms: 60_000 });
    const app = await startApp({ clock, config: { sources: [{ name: 'later', use: SCRIPTED_SOURCE, schedule: '1d', ...files.config }] } });
    t.after(async () => {
      await app.close();
      await files.remove();
    });
    const failed = await endedRun(app, 'later');
    assert.equal(failed.last_run.status, 'failed');
    assert.equal(failed.last_run.error, 'ListenBrainz is down for maintenance');
    const retryAt = new Date(clock.now() + 60_000).toISOString();
    assert.equal(failed.last_run.retry_at, retryAt);
    assert.equal(failed.next_run_at, retryAt);

    await files.script({ candidates: [candidate('Low', 'Things We Lost in the Fire', '2')] });
    await clock.advance(60_000);
    const retried = await endedRun(app, 'later', failed.last_run.id);
    assert.equal(retried.last_run.status, 'completed');
    assert.equal(retried.next_run_at, new Date(clock.now() + 24 * HOUR).toISOString());
  });

  it('waits a day at most for a retry hint, so a hint of 1e300 ms neither stops the server nor holds the source off for ever', async (t) => {
    const clock = new ManualClock();
    const files = await sourceFiles({ fail: 'ListenBrainz is busy', retry_after_ms: 1e300 });
    const app = await startApp({ clock, config: { sources: [{ name: 'monthly', use: SCRIPTED_SOURCE, schedule: '30d', ...files.config }] } });
    t.after(async () => {
      await app.close();
      await files.remove();
    });
    const failed = await endedRun(app, 'monthly');
    assert.equal(failed.last_run.status, 'failed');
    const retryAt = new Date(clock.now() + 24 * HOUR).toISOString();
    assert.equal(failed.last_run.retry_at, retryAt);
    assert.equal(failed.next_run_at, retryAt);

    await files.script({ candidates: [] });
    await clock.advance(24 * HOUR);
    const retried = await endedRun(app, 'monthly', failed.last_run.id);
    assert.equal(retried.last_run.status, 'completed');
    assert.equal(retried.next_run_at, new Date(clock.now() + 30 * 24 * HOUR).toISOString());
  });

  it('records a run stopped by a shutdown as interrupted and goes on from the source\'s cursor at the next start', async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'crateflow-source-shutdown-'));
    const files = await sourceFiles({ candidates: ['1', '2', '3', '4'].map((d) => candidate('Plaid', `Album ${d}`, d)), batch_size: 2, hold_from: 2 });
    t.after(async () => {
      await rm(dataDir, { recursive: true, force: true });
      await files.remove();
    });
    await files.closeGate();
    const config = { storage: { dir: dataDir }, sources: [{ name: 'nightly', use: SCRIPTED_SOURCE, schedule: '1d', ...files.config }] };
    const first = await startApp({ clock: new ManualClock(), config });
    await eventually(async () => ((await files.calls()).some((c) => c.event === 'cursor') ? true : undefined), 10_000, 'the first batch to be taken');
    await first.close();

    await files.openGate();
    const second = await startApp({ clock: new ManualClock(), config });
    t.after(() => second.close());
    const view = await endedRun(second, 'nightly');
    assert.equal(view.last_run.status, 'completed');
    assert.equal(view.last_run.summary.added, 2);
    const { body } = await api<{ items: Job[] }>(second.baseUrl, 'GET', '/api/v1/jobs?kind=source_run');
    assert.match(body.items[1]?.error ?? '', /^interrupted: the server shut down during the run/);
    assert.equal(body.items[1]?.summary.added, 2);
    assert.deepEqual((await files.calls()).filter((c) => c.event === 'start').map((c) => c.cursor), [0, 2]);
  });
});
