import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configPathFrom, loadConfig } from '../../../core/config/load-config.js';
import { REPO_ROOT, runService } from '../../helpers/run-service.js';

async function tempConfig(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'crateflow-config-'));
  const path = join(dir, 'config.yaml');
  await writeFile(path, text);
  return path;
}

describe('configPathFrom', () => {
  it('prefers --config over CRATEFLOW_CONFIG over ./config.yaml', () => {
    assert.deepEqual(configPathFrom('/a.yaml', { CRATEFLOW_CONFIG: '/b.yaml' }), { path: '/a.yaml', explicit: true });
    assert.deepEqual(configPathFrom(undefined, { CRATEFLOW_CONFIG: '/b.yaml' }), { path: '/b.yaml', explicit: true });
    assert.equal(configPathFrom(undefined, {}).explicit, false);
  });
});

describe('loadConfig', () => {
  it('uses built-in defaults equal to config.yaml.example when there is no file', async () => {
    const none = await loadConfig({ path: join(tmpdir(), 'no-such-dir', 'config.yaml'), explicit: false }, {});
    const example = await loadConfig({ path: join(REPO_ROOT, 'config.yaml.example'), explicit: true }, {});
    assert.deepEqual(none.problems, []);
    assert.equal(none.source, 'built-in defaults');
    assert.deepEqual(example.problems, []);
    assert.deepEqual(none.config.server, {
      host: '127.0.0.1',
      port: 8080,
      shutdown_timeout_ms: 10000,
      max_connections: 256,
      request_timeout_ms: 30000,
      max_event_streams: 32,
      event_stream_max_unread_bytes: 262144,
      allowed_hosts: [],
    });
    assert.equal(none.config.storage.dir, './data');
    assert.deepEqual({ ...example.config, download_client: { type: example.config.download_client.type }, library: { type: example.config.library.type } },
      { ...none.config, download_client: { type: none.config.download_client.type }, library: { type: none.config.library.type } });
  });

  it('reports an explicit config file that does not exist', async () => {
    const { problems } = await loadConfig({ path: '/nonexistent/crateflow.yaml', explicit: true }, {});
    assert.equal(problems[0]?.path, '(file)');
    assert.match(problems[0]?.message ?? '', /ENOENT/);
  });

  it('substitutes ${ENV} in strings and reports unset variables at their key path', async () => {
    const path = await tempConfig('storage:\n  dir: ${DATA_HOME}/crate\nlog:\n  level: ${MISSING_LEVEL}\n');
    const { config, problems } = await loadConfig({ path, explicit: true }, { DATA_HOME: '/srv' });
    assert.equal(config.storage.dir, '/srv/crate');
    assert.deepEqual(problems.find((p) => p.path === 'log.level'), { path: 'log.level', message: 'environment variable MISSING_LEVEL is not set' });
  });

  it('lets PORT override server.port and rejects a PORT that is not a port', async () => {
    const path = await tempConfig('server:\n  port: 9000\n');
    assert.equal((await loadConfig({ path, explicit: true }, { PORT: '9100' })).config.server.port, 9100);
    const bad = await loadConfig({ path, explicit: true }, { PORT: 'eighty' });
    assert.equal(bad.problems[0]?.path, 'PORT (environment)');
  });

  it('reports every problem at once with YAML key paths, unknown keys included', async () => {
    const path = await tempConfig('server:\n  port: 70000\n  hots: 0.0.0.0\nlog:\n  level: loud\nstorage: 5\n');
    const { problems } = await loadConfig({ path, explicit: true }, {});
    const lines = problems.map((p) => `${p.path}: ${p.message}`);
    assert.ok(lines.includes('server.port: must be <= 65535'), lines.join('\n'));
    assert.ok(lines.includes('server: unknown key "hots"; did you mean "host"?'), lines.join('\n'));
    assert.ok(lines.some((l) => l.startsWith('log.level: must be one of "fatal"')), lines.join('\n'));
    assert.ok(lines.includes('storage: must be an object'), lines.join('\n'));
  });

  it('reports YAML syntax errors with their line', async () => {
    const path = await tempConfig('server:\n  port: [1, 2\n');
    const { problems } = await loadConfig({ path, explicit: true }, {});
    assert.match(problems[0]?.path ?? '', /^line \d+, column \d+$/);
  });
});

describe('crateflow with a bad config', () => {
  it('exits 1 before listening, printing every problem with its key path and no stack trace', async () => {
    const path = await tempConfig(
      'server:\n  port: 99999\nlibrary:\n  type: plex\nwebhooks:\n  - name: ha\n    url: http://127.0.0.1:1/hook\n    events: [download_completed]\n    timeout_ms: 60000\n    retires: 3\n',
    );
    const { code, stderr, stdout } = await runService(['--config', path]);
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`Invalid configuration in ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:`));
    assert.match(stderr, /- server\.port: must be <= 65535/);
    assert.match(stderr, /- library\.type: unknown type "plex"/);
    assert.match(stderr, /- webhooks\[0\]\.timeout_ms: must be <= 30000/);
    assert.match(stderr, /- webhooks\[0\]: unknown key "retires"/);
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
    assert.doesNotMatch(stdout, /listening/);
  });
});
