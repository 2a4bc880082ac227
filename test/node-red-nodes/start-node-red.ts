import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { buildNodePackage } from './build-node-package.js';
import { isolateNodeRedInstall } from './isolate-node-red-install.js';
import type { FlowNode } from './node-red-test-helper.js';

export interface StartedNodeRed {
  /** `http://127.0.0.1:<port>`: the editor and the flows' HTTP endpoints (Node-RED's defaults serve both at `/`). */
  url: string;
  userDir: string;
  /** Node-RED's log lines at `[warn]` or `[error]`, as it prints them. */
  warnings: string[];
  /** Everything Node-RED printed, for failure messages. */
  output(): string;
  /**
   * Writes the flows and their credentials into the user dir, when given, and starts Node-RED. Without them the
   * user dir is left as it is, as for a user's first start.
   */
  start(flows?: FlowNode[], credentials?: Record<string, Record<string, string>>): Promise<void>;
  /** The node types Node-RED loaded from installed packages without an error (its admin API, `GET /nodes`). */
  loadedTypes(): Promise<string[]>;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('the port probe has no TCP address');
  return address.port;
}

/**
 * Prepares Node-RED as a user runs it, with the built package installed in `<userDir>/node_modules` the way the
 * palette manager would put it (see {@link launchNodeRed}).
 */
export async function prepareNodeRed(userDir: string, options: LaunchOptions = {}): Promise<StartedNodeRed> {
  await buildNodePackage(join(userDir, 'node_modules', '@crateflow', 'node-red'));
  await writeFile(join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', private: true, dependencies: { '@crateflow/node-red': '*' } }));
  return launchNodeRed(userDir, options);
}

export interface LaunchOptions {
  /** A settings file of the test's own instead of the shipped settings.js (`--settings`). */
  settingsFile?: string;
}

/**
 * Prepares Node-RED as a user runs it on `userDir` as it is: the `node-red` command (red.js) in its own process,
 * started with the package's shipped settings.js (editor and admin API at `/`, its JSON body parser in front of
 * every flow endpoint, palette install and upload allowed). Only the port is chosen (`--port`, as `node-red -p`
 * does). The URL is known before start, so the caller can write flows that point here.
 */
export async function launchNodeRed(userDir: string, options: LaunchOptions = {}): Promise<StartedNodeRed> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const warnings: string[] = [];
  let printed = '';
  let child: ChildProcess | undefined;

  return {
    url,
    userDir,
    warnings,
    output: () => printed,
    async start(flows, credentials) {
      await mkdir(userDir, { recursive: true });
      if (flows) await writeFile(join(userDir, 'flows.json'), JSON.stringify(flows, null, 2));
      // An unencrypted credentials file is what a hand-written one looks like; Node-RED encrypts it with its
      // generated key on first start (shipped settings: credentialSecret unset).
      if (credentials) await writeFile(join(userDir, 'flows_cred.json'), JSON.stringify(credentials, null, 2));
      // Next to the user dir, so the caller's clean-up of its temp folder removes it too.
      const redJs = await isolateNodeRedInstall(`${userDir}-node-red-install`);
      const settings = options.settingsFile ?? join(dirname(redJs), 'settings.js');
      const args = ['--preserve-symlinks', '--preserve-symlinks-main', redJs, '--settings', settings, '--userDir', userDir, '--port', String(port)];
      const started = spawn(process.execPath, args, {
        cwd: userDir,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = started;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`Node-RED did not start flows within ${START_TIMEOUT_MS} ms:\n${printed}`)), START_TIMEOUT_MS);
        const onLine = (line: string) => {
          if (/\[(warn|error)\]/.test(line)) warnings.push(line);
          if (/\[info\] Started flows/.test(line)) {
            clearTimeout(timer);
            resolve();
          }
        };
        let pending = '';
        const onChunk = (chunk: Buffer) => {
          printed += chunk.toString('utf8');
          pending += chunk.toString('utf8');
          const lines = pending.split('\n');
          pending = lines.pop() ?? '';
          for (const line of lines) onLine(line);
        };
        started.stdout?.on('data', onChunk);
        started.stderr?.on('data', onChunk);
        started.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`Node-RED exited (code ${code}, signal ${signal}) before starting flows:\n${printed}`));
        });
      });
    },
    async loadedTypes() {
      const response = await fetch(`${url}/nodes`, { headers: { accept: 'application/json' } });
      if (!response.ok) throw new Error(`GET /nodes answered ${response.status}`);
      const sets: unknown = await response.json();
      if (!Array.isArray(sets)) throw new Error(`GET /nodes is not a list: ${JSON.stringify(sets)}`);
      return sets.flatMap((set: unknown) => {
        if (typeof set !== 'object' || set === null) return [];
        const types: unknown = Reflect.get(set, 'types');
        const error: unknown = Reflect.get(set, 'err');
        const loaded = Reflect.get(set, 'enabled') === true && (error === undefined || error === null);
        return loaded && Array.isArray(types) ? types.filter((type): type is string => typeof type === 'string') : [];
      });
    },
    async close() {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
  };
}
