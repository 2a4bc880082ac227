import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers/run-service.js';

interface ComposeService {
  build?: string;
  image?: string;
  ports?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
}
interface CrateflowConfig {
  server: { host: string; port: number; allowed_hosts: string[] };
  download_client: { url: string; downloads_dir: string };
  library: { url: string };
}

/**
 * The host folder a service mounts at `containerPath` (`./music/soulseek:/downloads:ro` → ./music/soulseek), with
 * compose's `${NAME:-default}` read as its default: what an unedited checkout with no .env mounts.
 */
function hostFolderAt(service: ComposeService, containerPath: string): string | undefined {
  const mount = service.volumes?.map((line) => withDefaults(line).split(':')).find(([, inside]) => inside === containerPath);
  return mount?.[0] === undefined ? undefined : posix.normalize(mount[0]);
}

function withDefaults(line: string): string {
  return line.replace(/\$\{\w+:-([^}]*)\}/g, '$1');
}

// compose.yaml is never started here (no container engine): this checks that its services and folders are the
// ones the example config names, which is what a copy-and-edit mistake would break.
describe('compose.yaml beside examples/container/compose/config.yaml', () => {
  let services: Record<string, ComposeService>;
  let config: CrateflowConfig;
  let configText: string;
  before(async () => {
    services = (parse(await readFile(join(REPO_ROOT, 'compose.yaml'), 'utf8')) as { services: Record<string, ComposeService> }).services;
    configText = await readFile(join(REPO_ROOT, 'examples', 'container', 'compose', 'config.yaml'), 'utf8');
    config = parse(configText) as CrateflowConfig;
  });

  it('builds Crateflow from this Dockerfile and mounts the example config folder as /config', () => {
    const crateflow = services.crateflow;
    assert.ok(crateflow && services.slskd && services.navidrome, 'crateflow, slskd and navidrome services');
    assert.equal(crateflow.build, '.');
    const configDir = hostFolderAt(crateflow, '/config');
    assert.equal(configDir, 'examples/container/compose');
    assert.ok(existsSync(join(REPO_ROOT, configDir, 'config.yaml')));
    assert.ok(crateflow.volumes?.some((line) => line.split(':')[1] === '/data'), 'a volume on /data');
    // A config of one's own lives outside the checkout: the mount names it through .env, no tracked file is edited.
    assert.ok(crateflow.volumes?.some((line) => line.startsWith('${CRATEFLOW_CONFIG_DIR:-')), 'the config folder comes from CRATEFLOW_CONFIG_DIR');
  });

  it('runs a discovery source that needs no account, in both container configs', async () => {
    for (const file of [join(REPO_ROOT, 'examples', 'container', 'compose', 'config.yaml'), join(REPO_ROOT, 'examples', 'container', 'config.yaml')]) {
      const parsed = parse(await readFile(file, 'utf8')) as { sources?: { type: string }[] };
      assert.deepEqual(parsed.sources?.map((source) => source.type), ['new-releases', 'similar-artists'], file);
    }
  });

  it('shows Crateflow the folder slskd downloads into, inside the folder Navidrome reads', () => {
    const { crateflow, slskd, navidrome } = services;
    assert.ok(crateflow && slskd && navidrome);
    const slskdDownloads = slskd.environment?.SLSKD_DOWNLOADS_DIR;
    assert.ok(slskdDownloads, 'slskd is told where its downloads go');
    const downloads = hostFolderAt(slskd, slskdDownloads);
    assert.ok(downloads, `slskd mounts a host folder at ${slskdDownloads}`);
    assert.equal(hostFolderAt(crateflow, config.download_client.downloads_dir), downloads, `Crateflow's downloads_dir ${config.download_client.downloads_dir} is slskd's folder`);
    const music = hostFolderAt(navidrome, '/music');
    assert.ok(music && downloads.startsWith(`${music}/`), `Navidrome's music folder ${music} holds ${downloads}`);
  });

  it('reaches slskd and Navidrome by service name, passes every secret the config reads, and publishes on loopback', () => {
    const crateflow = services.crateflow;
    assert.ok(crateflow);
    assert.equal(new URL(config.download_client.url).host, 'slskd:5030');
    assert.ok(services.slskd?.ports?.some((port) => port.endsWith(':5030')));
    assert.equal(new URL(config.library.url).host, 'navidrome:4533');
    assert.ok(services.navidrome?.ports?.some((port) => port.endsWith(':4533')));
    for (const [, name] of configText.matchAll(/\$\{(\w+)\}/g)) assert.ok(name && crateflow.environment?.[name], `compose passes ${name}`);
    assert.equal(config.server.host, '0.0.0.0');
    assert.ok(config.server.allowed_hosts.includes('crateflow'), 'the service name is an allowed Host');
    // Authentication is off in the example: only this machine may reach the published port.
    assert.deepEqual(crateflow.ports, [`127.0.0.1:8080:${config.server.port}`]);
  });
});
