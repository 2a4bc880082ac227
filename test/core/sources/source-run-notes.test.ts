import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, eventually } from '../../helpers/api-client.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';
import { writeAlbum } from '../../helpers/write-album.js';
import { candidate, SCRIPTED_SOURCE, sourceFiles, type SourceFiles } from './source-fixture.js';

interface Job {
  id: string;
  status: string;
  note?: string;
  summary: Record<string, number>;
}

async function run(app: StartedApp, name: string): Promise<Job> {
  const started = await api<{ job: Job }>(app.baseUrl, 'POST', `/api/v1/sources/${name}/run`);
  assert.equal(started.status, 202);
  return eventually(async () => {
    const job = (await api<Job>(app.baseUrl, 'GET', `/api/v1/jobs/${started.body.job.id}`)).body;
    return job.status === 'running' ? undefined : job;
  }, 10_000, `the run of ${name} to end`);
}

describe('a source run that adds nothing', () => {
  let app: StartedApp;
  const files: SourceFiles[] = [];
  const owned = candidate('Boards of Canada', 'Geogaddi', '2');

  before(async () => {
    const quiet = await sourceFiles({ candidates: [], explain: 'your library is empty, so there are no artists to start from' });
    const known = await sourceFiles({ candidates: [owned] });
    const empty = await sourceFiles({ candidates: [] });
    const adds = await sourceFiles({ candidates: [candidate('Autechre', 'Tri Repetae', '1')], explain: 'not shown: this run adds something' });
    files.push(quiet, known, empty, adds);
    app = await startApp({
      config: {
        sources: [
          { name: 'quiet', use: SCRIPTED_SOURCE, schedule: 'manual', ...quiet.config },
          { name: 'known', use: SCRIPTED_SOURCE, schedule: 'manual', ...known.config },
          { name: 'empty', use: SCRIPTED_SOURCE, schedule: 'manual', ...empty.config },
          { name: 'adds', use: SCRIPTED_SOURCE, schedule: 'manual', ...adds.config },
        ],
      },
    });
    await writeAlbum(join(dirname(app.dataDir), 'music', 'Boards of Canada', 'Geogaddi'));
    const sync = await api<{ job: Job }>(app.baseUrl, 'POST', '/api/v1/library/sync');
    await eventually(async () => (await api<Job>(app.baseUrl, 'GET', `/api/v1/jobs/${sync.body.job.id}`)).body.status === 'completed' || undefined, 10_000, 'the sync');
  });
  after(async () => {
    await app.close();
    await Promise.all(files.map((f) => f.remove()));
  });

  it('records the source\'s own explanation as the job\'s note, and GET /sources shows it with the last run', async () => {
    const job = await run(app, 'quiet');
    assert.equal(job.status, 'completed');
    assert.equal(job.note, 'your library is empty, so there are no artists to start from');
    const sources = await api<{ items: { name: string; last_run: Job | null }[] }>(app.baseUrl, 'GET', '/api/v1/sources');
    assert.equal(sources.body.items.find((s) => s.name === 'quiet')?.last_run?.note, job.note);
  });

  it('says what the counts say when everything found is known already', async () => {
    const job = await run(app, 'known');
    assert.equal(job.summary['owned'], 1);
    assert.equal(job.note, 'everything it found is known already: 1 in your library');
  });

  it('says it found nothing new when a source proposes nothing and gives no reason', async () => {
    assert.equal((await run(app, 'empty')).note, 'it found nothing new to propose this time');
  });

  it('carries no note when the run added something', async () => {
    const job = await run(app, 'adds');
    assert.equal(job.summary['added'], 1);
    assert.equal(job.note, undefined);
  });
});
