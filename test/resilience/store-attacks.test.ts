// Attacks on the store through the real service: filling it to its bound with maximal items, a second
// process on the same data dir, and a damaged change log. Prints what it measured.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api } from '../helpers/api-client.js';
import { freePort, killAllServiceProcesses, runServiceToExit, SERVICE_CHILD, startServiceProcess } from './service-process.js';
import { writeServiceConfig } from './write-service-config.js';

after(killAllServiceProcesses);

const BOUND = 5000;
const report: [string, string][] = [];

/** The largest candidate the API accepts: every text field at its maximum length. */
const maximal = (i: number) => ({
  artist: `${i} ${'a'.repeat(490)}`,
  album: 'b'.repeat(500),
  title: 't'.repeat(500),
  source: 's'.repeat(100),
  cover_url: `https://covers.example/${'c'.repeat(1900)}`,
  score: i,
  year: 2000,
});

describe('store attacks', () => {
  after(() => {
    const width = Math.max(...report.map(([k]) => k.length));
    process.stdout.write(`# === store attacks ===\n${report.map(([k, v]) => `#   ${k.padEnd(width)}  ${v}`).join('\n')}\n`);
  });

  it('fills the store to storage.max_items with maximal items: 507 past it, and a restart reads it all back', async () => {
    const root = await mkdtemp(join(tmpdir(), 'crateflow-bound-attack-'));
    const port = await freePort();
    const config = await writeServiceConfig(root, port, { storage: { max_items: BOUND } });
    let service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    let added = 0;
    let refused = 0;
    for (let batch = 0; refused === 0 && batch < 40; batch++) {
      // 250 maximal items stay under the 1 MiB body limit.
      const res = await api<{ items: unknown[] }>(service.baseUrl, 'POST', '/api/v1/queue', Array.from({ length: 250 }, (_, i) => maximal(batch * 250 + i)));
      if (res.status === 201) added += res.body.items.length;
      else {
        assert.equal(res.status, 507);
        refused++;
      }
    }
    const one = await api<{ detail: string }>(service.baseUrl, 'POST', '/api/v1/queue', maximal(99_999));
    assert.equal(one.status, 507);
    assert.equal(added, BOUND);
    await service.stop();
    const snapshot = (await stat(join(root, 'data', 'crateflow.json'))).size;
    const longestLine = Math.max(...(await readFile(join(root, 'data', 'crateflow.json'), 'utf8')).split('\n').map((line) => line.length));
    const started = performance.now();
    service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    const restartMs = Math.round(performance.now() - started);
    const pending = await api<{ total: number }>(service.baseUrl, 'GET', '/api/v1/queue/pending?limit=1');
    assert.equal(pending.body.total, BOUND);
    await service.stop();
    report.push(
      ['bound (storage.max_items)', `${BOUND} maximal items (~3.6 KB each) held, the next ${refused} batch and a single add → 507`],
      ['snapshot after a clean stop', `${(snapshot / 1024 / 1024).toFixed(1)} MiB, longest line ${longestLine} chars (one record a line)`],
      ['restart at the bound', `ready in ${restartMs} ms with all ${BOUND} items`],
    );
  });

  it('refuses a second process on the same data dir and leaves every file as it was', async () => {
    const root = await mkdtemp(join(tmpdir(), 'crateflow-lock-attack-'));
    const port = await freePort();
    const config = await writeServiceConfig(root, port);
    const first = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    for (let i = 0; i < 50; i++) assert.equal((await api(first.baseUrl, 'POST', '/api/v1/queue', { artist: `Held ${i}`, album: 'A' })).status, 201);
    const data = join(root, 'data');
    const files = async () => Promise.all((await readdir(data)).sort().map(async (name) => `${name}:${(await stat(join(data, name))).mtimeMs}`));
    const before = await files();
    const sameDir = await writeServiceConfig(await mkdtemp(join(tmpdir(), 'crateflow-lock-attack-b-')), await freePort(), { storage: { dir: data } });
    const secondDir = await runServiceToExit(sameDir);
    const samePort = await runServiceToExit(config);
    assert.equal(secondDir.code, 1);
    assert.equal(samePort.code, 1);
    assert.deepEqual(await files(), before);
    assert.equal((await api<{ total: number }>(first.baseUrl, 'GET', '/api/v1/queue/pending?limit=1')).body.total, 50);
    await first.stop();
    report.push(
      ['second process, same data dir', `exit ${secondDir.code}: ${firstLine(secondDir.output)}`],
      ['second process, same port', `exit ${samePort.code}: ${firstLine(samePort.output)}`],
      ['data dir after both', 'unchanged (names and modification times); the first still holds its 50 writes'],
    );
  });

  it('refuses to start on a damaged change log, naming the file and the line', async () => {
    const root = await mkdtemp(join(tmpdir(), 'crateflow-damage-attack-'));
    const port = await freePort();
    const config = await writeServiceConfig(root, port);
    const service = await startServiceProcess({ script: SERVICE_CHILD, args: ['--config', config], port });
    for (let i = 0; i < 3; i++) await api(service.baseUrl, 'POST', '/api/v1/queue', { artist: `Kept ${i}`, album: 'A' });
    await service.kill9();
    const log = join(root, 'data', 'crateflow.json.changes');
    const lines = (await readFile(log, 'utf8')).split('\n');
    lines[1] = `{${lines[1] ?? ''}`;
    await writeFile(log, lines.join('\n'));
    const started = await runServiceToExit(config);
    assert.equal(started.code, 1);
    assert.match(started.output, /crateflow\.json\.changes: line 2 is not valid JSON/);
    report.push(['damaged change log line', `exit ${started.code}: ${firstLine(started.output).replace(root, '<dir>')}`]);
  });
});

function firstLine(output: string): string {
  return (output.trim().split('\n')[0] ?? '').slice(0, 160);
}
