import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRecords } from '../helpers/read-stored.js';
import { spawnService, waitForListening } from '../helpers/run-service.js';

async function serviceDir(extra = ''): Promise<{ dir: string; config: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-life-'));
  const config = join(dir, 'config.yaml');
  await writeFile(
    config,
    `server:\n  port: 0\n${extra}storage:\n  dir: ${dir}/data\ndownload_client:\n  requests_dir: ${dir}/req\n  complete_dir: ${dir}/done\nlibrary:\n  path: ${dir}/music\n`,
  );
  return { dir, config };
}

describe('the service process', () => {
  it('listens on 127.0.0.1 by default and stops on SIGTERM after finishing in-flight requests, with exit code 0', async () => {
    const { dir, config } = await serviceDir();
    const child = spawnService(['--config', config]);
    const { port, lines } = await waitForListening(child);
    assert.ok(lines.some((l) => l.includes('"host":"127.0.0.1"')));
    assert.ok(!lines.some((l) => l.includes('forward-auth proxy')), 'no warning on loopback');
    // Start a write, then ask the process to stop while it is in flight.
    const inFlight = fetch(`http://127.0.0.1:${port}/api/v1/queue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ artist: `Artist ${i}`, album: `Album ${i}` }))),
    });
    await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGTERM');
    const res = await inFlight;
    assert.equal(res.status, 201);
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    assert.equal(readRecords(join(dir, 'data'), 'queue_items', "status = 'pending'").length, 500);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/health`), 'no longer accepting connections');
  });

  it('warns that a forward-auth proxy is expected when listening beyond loopback without authentication', async () => {
    const { config } = await serviceDir();
    const text = await readFile(config, 'utf8');
    await writeFile(config, text.replace('server:\n', 'server:\n  host: 0.0.0.0\n'));
    const child = spawnService(['--config', config]);
    const { lines } = await waitForListening(child);
    child.kill('SIGINT');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
    const warning = lines.map((l) => JSON.parse(l)).find((entry) => entry.level === 40);
    assert.match(warning?.msg ?? '', /authentication is disabled.*forward-auth proxy/);
  });
});
