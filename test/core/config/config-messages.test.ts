import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { runService } from '../../helpers/run-service.js';

/** Runs the service with `yaml` as its config file and returns the problem lines it printed before exiting 1. */
async function problemsFor(t: TestContext, yaml: string): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-config-messages-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'config.yaml');
  await writeFile(path, `storage:\n  dir: ${dir}/data\n${yaml}`);
  const { code, stderr } = await runService(['--config', path]);
  assert.equal(code, 1, stderr);
  const lines = stderr.trim().split('\n');
  assert.equal(lines[0], `Invalid configuration in ${path}:`, stderr);
  return lines.slice(1).map((line) => line.replace(/^ {2}- /, ''));
}

describe('config problems as a person reads them (the service process)', () => {
  it('describes durations, addresses and password hashes in words, with the value found, and never a regular expression', async (t) => {
    const lines = await problemsFor(t, [
      'download_client:', '  poll_interval: 10 seconds',
      'ui:', '  auth:', '    enabled: true', '    type: basic', '    username: admin', '    password_hash: not-a-hash',
      'webhooks:', '  - name: chat', '    url: htp://chat.lan', '    events: [queue_added]', '',
    ].join('\n'));
    assert.deepEqual(lines, [
      'download_client.poll_interval: must be a duration like 10s (a whole number followed by ms, s, m, h or d: 500ms, 30s, 5m, 6h, 1d), got "10 seconds"',
      'ui.auth.password_hash: must be an scrypt hash starting with $scrypt$; make one with npm run hash-password (auth-basic)',
      'webhooks[0].url: must be an http:// or https:// address, got "htp://chat.lan" (webhooks)',
    ]);
    for (const line of lines) assert.doesNotMatch(line, /\^|\\\$|\[Hh\]|pattern/);
  });

  it('names a key written twice with both lines, and still reports the other problems', async (t) => {
    const lines = await problemsFor(t, 'server:\n  port: 8080\n  port: 9090\nlibrary:\n  sync_interval: daily\n');
    assert.deepEqual(lines, [
      'server.port: is written twice (lines 4 and 5); keep one',
      'library.sync_interval: must be a duration like 10s (a whole number followed by ms, s, m, h or d: 500ms, 30s, 5m, 6h, 1d), got "daily"',
    ]);
  });

  it('suggests the key that was probably meant, once per problem', async (t) => {
    const lines = await problemsFor(t, 'webhooks:\n  - name: chat\n    url: http://chat.lan\n    events: [queue_added]\n    retries: 2\n    timeout_ms: 50000\n');
    assert.deepEqual(lines, ['webhooks[0]: unknown key "retries"; did you mean "retry"? (webhooks)', 'webhooks[0].timeout_ms: must be <= 30000 (webhooks)']);
    assert.equal(new Set(lines).size, lines.length);
  });

  it('says each problem once in plain words, with a suggestion for a swapped-letter key', async (t) => {
    const lines = await problemsFor(t, [
      'server:', '  hots: 0.0.0.0',
      'ui:', '  auth:', '    api_keys:', '      - name: node-red', '        key: short',
      'webhooks: 5', '',
    ].join('\n'));
    assert.deepEqual(lines, [
      'server: unknown key "hots"; did you mean "host"?',
      'ui.auth.api_keys[0].key: must be at least 16 characters long',
      'webhooks: must be an array',
    ]);
  });

  it('reports a plugin\'s create-time check in the same path: message form', async (t) => {
    const lines = await problemsFor(t, [
      'ui:', '  auth:', '    enabled: true', '    type: basic', '    username: admin', '    password: a-long-enough-password-1',
      '    password_hash: "$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA"', '',
    ].join('\n'));
    assert.deepEqual(lines, ['ui.auth: set exactly one of password and password_hash (auth-basic)']);
  });
});
