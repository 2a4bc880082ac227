import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from '../helpers/run-service.js';

const WORKSPACES = ['core', 'sdk', 'node-red-nodes', 'plugins/auth-basic', 'plugins/auth-proxy', 'plugins/download-blackhole', 'plugins/download-slskd', 'plugins/library-filesystem', 'plugins/library-jellyfin', 'plugins/library-subsonic', 'plugins/preview-deezer', 'plugins/sink-webhooks', 'examples/plugins/sink-ntfy'];

async function enginesNode(folder: string): Promise<string | undefined> {
  const manifest: unknown = JSON.parse(await readFile(join(REPO_ROOT, folder, 'package.json'), 'utf8'));
  if (!manifest || typeof manifest !== 'object' || !('engines' in manifest) || !manifest.engines || typeof manifest.engines !== 'object') return undefined;
  return 'node' in manifest.engines && typeof manifest.engines.node === 'string' ? manifest.engines.node : undefined;
}

/**
 * Whether `version` (22.23.3) is in `range`, written as caret ranges joined by `||` (`^20.18.1 || ^22 || ^24`),
 * the only form our manifests use; any other form fails the test rather than being half understood.
 */
function satisfies(version: string, range: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  return range.split('||').some((part) => {
    const caret = /^\s*\^(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(part);
    if (!caret) throw new Error(`engines.node "${range}": "${part.trim()}" is not a caret range`);
    const [low, lowMinor, lowPatch] = [Number(caret[1]), Number(caret[2] ?? 0), Number(caret[3] ?? 0)];
    return major === low && (minor > lowMinor || (minor === lowMinor && patch >= lowPatch));
  });
}

// What `engines` claims must be what CI runs: the machine's Node (this process, in CI) and .ci/run's NODE_VERSIONS.
describe('the supported Node versions', () => {
  it('are declared alike in the root and every workspace package, the sdk and the Node-RED nodes included', async () => {
    const root = await enginesNode('.');
    assert.ok(root, 'the root package.json declares engines.node');
    for (const folder of WORKSPACES) assert.equal(await enginesNode(folder), root, `${folder}/package.json engines.node`);
  });

  it('take in every Node CI runs the suite on, this one included, and the README names them', async () => {
    const range = (await enginesNode('.')) ?? '';
    const ci = await readFile(join(REPO_ROOT, '.ci', 'run'), 'utf8');
    const versions = /^NODE_VERSIONS="([^"]*)"/m.exec(ci)?.[1]?.split(/\s+/).filter(Boolean) ?? [];
    assert.ok(versions.length >= 2, `.ci/run lists its Node versions: ${versions.join(', ')}`);
    for (const version of [...versions, process.versions.node]) assert.ok(satisfies(version, range), `${version} satisfies ${range}`);
    const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
    const requirement = readme.split('\n').find((line) => line.startsWith('Requirements:')) ?? '';
    for (const version of versions) assert.ok(requirement.includes(version), `the README's requirement line names ${version}: ${requirement}`);
  });
});
