import { spawn } from 'node:child_process';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { demoConfig } from './demo-config.js';
import { seedDemoLibrary } from './seed-demo-library.js';
import { startDemoWorld, type DemoWorld } from './demo-world.js';

const USAGE = `Usage: npm run demo [-- --fresh] [-- --port N] [-- --dir PATH]

Starts Crateflow with a seeded world from the project's fakes on 127.0.0.1 (MusicBrainz, the Cover Art Archive,
ListenBrainz, Deezer previews, slskd): try discovery, previews, approvals and downloads without an account anywhere.

  --fresh      forget the demo's queue, wishlist and downloads and start over
  --port N     the web UI's port (default 8080, or PORT)
  --dir PATH   where the demo keeps its config, data, library and downloads (default ./demo-data)
`;

interface DemoOptions {
  fresh: boolean;
  port: number;
  dir: string;
}

/** `npm run demo`: the fakes, a demo library and config, then the service itself (the bundle `npm start` runs). */
export async function runDemo(argv: readonly string[], serviceScript: string): Promise<number> {
  const options = parseOptions(argv);
  if (typeof options === 'string') {
    process.stdout.write(options === 'help' ? USAGE : '');
    if (options !== 'help') process.stderr.write(`${options}\n\n${USAGE}`);
    return options === 'help' ? 0 : 2;
  }
  if (options.fresh) await rm(options.dir, { recursive: true, force: true });
  const places = { port: options.port, dataDir: join(options.dir, 'data'), musicDir: join(options.dir, 'music'), downloadsDir: join(options.dir, 'downloads') };
  await Promise.all([places.dataDir, places.musicDir, places.downloadsDir].map((dir) => mkdir(dir, { recursive: true })));
  const world = await startDemoWorld({ downloadsDir: places.downloadsDir });
  if ((await readdir(places.musicDir)).length === 0) await seedDemoLibrary(world.catalogue, places.musicDir);
  const configPath = join(options.dir, 'config.yaml');
  await writeFile(configPath, `# Written by npm run demo at each start (the fakes listen on new ports each time).\n${stringify(demoConfig(world.urls, places))}`);
  printWelcome(world, options, configPath);
  return runService(serviceScript, configPath, world);
}

function parseOptions(argv: readonly string[]): DemoOptions | string {
  const options: DemoOptions = { fresh: false, port: Number(process.env['PORT'] || 8080), dir: resolve('demo-data') };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--fresh') options.fresh = true;
    else if (arg === '--port' || arg === '--dir') {
      const value = argv[++i];
      if (value === undefined || value.startsWith('--')) return `${arg} needs a value`;
      if (arg === '--dir') options.dir = resolve(value);
      else options.port = Number(value);
    } else return `unknown option ${arg}`;
  }
  if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65_535) return `the port must be a whole number from 1 to 65535 (got ${String(options.port)})`;
  return options;
}

function printWelcome(world: DemoWorld, options: DemoOptions, configPath: string): void {
  const { urls } = world;
  process.stdout.write(`
Crateflow demo: open http://127.0.0.1:${options.port}/

  1. Queue → "Run listening now" (or the Sources page): albums recommended to the fake ListenBrainz user arrive
     with covers and reasons. Play a preview, approve a few, reject one.
  2. Downloads: approved albums are searched on the fake Soulseek network and land in
     ${join(options.dir, 'downloads')}
  3. The library is ${join(options.dir, 'music')}: add an Artist/Album folder and sync it on the Library page.

The fakes (local, invented catalogue):
  MusicBrainz        ${urls.musicbrainz}
  Cover Art Archive  ${urls.coverArtArchive}
  ListenBrainz       ${urls.listenbrainz} (Labs ${urls.listenbrainzLabs})
  Deezer             ${urls.deezer} (previews ${urls.deezerCdn})
  slskd              ${urls.slskd}
Config: ${configPath}
`);
}

/** Runs the service in a child process until it exits; Ctrl+C and SIGTERM stop it (gracefully), then the fakes. */
async function runService(serviceScript: string, configPath: string, world: DemoWorld): Promise<number> {
  const child = spawn(process.execPath, [serviceScript, '--config', configPath], { stdio: 'inherit', env: { ...process.env, PORT: '', CRATEFLOW_CONFIG: '' } });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  // Should the launcher itself fail, the service it started must not live on without its fakes.
  const stopOnExit = () => child.kill('SIGTERM');
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  process.on('exit', stopOnExit);
  const code = await new Promise<number>((done) => {
    child.once('exit', (status, signal) => done(status ?? (signal ? 1 : 0)));
    child.once('error', (err) => {
      process.stderr.write(`the demo could not start Crateflow: ${err.message}\n`);
      done(1);
    });
  });
  process.off('SIGINT', forward);
  process.off('SIGTERM', forward);
  process.off('exit', stopOnExit);
  await world.close();
  return code;
}
