import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { api, eventually } from '../helpers/api-client.js';
import { candidate, SCRIPTED_SOURCE, sourceFiles } from '../core/sources/source-fixture.js';
import { SERVICE_CHILD, freePort, killAllServiceProcesses, startServiceProcess } from './service-process.js';
import { writeServiceConfig } from './write-service-config.js';

interface Job {
  id: string;
  status: string;
  error?: string;
  summary: Record<string, number>;
}

after(() => killAllServiceProcesses());

describe('a source run cut short by kill -9', () => {
  it('goes on after the restart from the cursor the source keeps, adding nothing twice', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'crateflow-source-resume-'));
    const candidates = ['1', '2', '3', '4', '5', '6'].map((digit) => candidate('Autechre', `Album ${digit}`, digit));
    // Two batches of two go in, then the source waits at the gate before its third.
    const files = await sourceFiles({ candidates, batch_size: 2, hold_from: 4 });
    t.after(async () => {
      await rm(dir, { recursive: true, force: true });
      await files.remove();
    });
    await files.closeGate();
    const port = await freePort();
    const config = await writeServiceConfig(dir, port, { replace: { sources: [{ name: 'picks', use: SCRIPTED_SOURCE, schedule: '1d', ...files.config }] } });

    // Never run before: it runs once the server listens.
    const first = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    await eventually(async () => ((await files.calls()).some((c) => c.event === 'cursor' && c.at === 4) ? true : undefined), 20_000, 'two batches to be taken');
    await first.kill9();

    await files.openGate();
    const second = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    const jobs = await eventually(async () => {
      const { body } = await api<{ items: Job[] }>(second.baseUrl, 'GET', '/api/v1/jobs?kind=source_run');
      return body.items.length === 2 && body.items[0]?.status !== 'running' ? body.items : undefined;
    }, 20_000, 'the run after the restart to end');
    const [resumed, killed] = jobs;
    assert.equal(killed?.status, 'failed');
    assert.match(killed?.error ?? '', /interrupted/);
    assert.equal(resumed?.status, 'completed', resumed?.error);
    assert.deepEqual(resumed?.summary, { added: 2, duplicate: 0, owned: 0, rejected_before: 0, invalid: 0 });

    const starts = (await files.calls()).filter((c) => c.event === 'start');
    assert.deepEqual(starts.map((c) => c.cursor), [0, 4], 'the second run starts at the cursor the first one left');
    const pending = await api<{ items: { album: string }[]; total: number }>(second.baseUrl, 'GET', '/api/v1/queue/pending?source=picks&limit=50&sort=artist');
    assert.equal(pending.body.total, 6);
    assert.deepEqual(pending.body.items.map((i) => i.album).sort(), candidates.map((c) => String(c.album)).sort());
    await second.stop();
  });
});
