import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildNodePackage, requireFromPackage } from './build-node-package.js';
import type { FlowNode } from './node-red-test-helper.js';

type Next = (error?: unknown) => void;

/** The embedding API of the `node-red` package (node-red/lib/red.js) as used here. */
interface NodeRedApi {
  init(server: import('node:http').Server, settings: Record<string, unknown>): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  httpNode: (req: IncomingMessage, res: ServerResponse, next: Next) => void;
  nodes: { getNode(id: string): unknown };
  events: import('node:events').EventEmitter;
}

/** One line of Node-RED's log, as a custom logging handler receives it. */
export interface NodeRedLogEntry {
  level: number;
  msg: unknown;
  type?: string;
  id?: string;
}

export interface StartedNodeRed {
  /** `http://127.0.0.1:<port>`: Node-RED's HTTP endpoints (httpNodeRoot `/`). */
  url: string;
  userDir: string;
  /** Every log entry at warn level or above. */
  warnings: NodeRedLogEntry[];
  /** Writes the flows and their credentials into the user dir and starts the runtime. */
  start(flows: FlowNode[], credentials: Record<string, Record<string, string>>): Promise<void>;
  hasNode(id: string): boolean;
  close(): Promise<void>;
}

const LEVEL_WARN = 30;

/**
 * Prepares a real Node-RED runtime (`require('node-red')`, RED.init + RED.start) in `userDir`, with the built
 * package installed in `<userDir>/node_modules` the way the palette manager would put it, and the editor off.
 * Listening happens first, so the caller knows Node-RED's URL before it writes flows that point elsewhere.
 * Node-RED's runtime is a singleton: use this once per test process.
 */
export async function prepareNodeRed(userDir: string): Promise<StartedNodeRed> {
  await buildNodePackage(join(userDir, 'node_modules', '@crateflow', 'node-red'));
  await writeFile(join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', private: true, dependencies: { '@crateflow/node-red': '*' } }));
  const RED: NodeRedApi = requireFromPackage('node-red');
  const warnings: NodeRedLogEntry[] = [];
  const server = createServer((req, res) => {
    RED.httpNode(req, res, () => {
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('Node-RED server has no TCP address');
  let started = false;

  return {
    url: `http://127.0.0.1:${address.port}`,
    userDir,
    warnings,
    async start(flows, credentials) {
      await mkdir(userDir, { recursive: true });
      await writeFile(join(userDir, 'flows.json'), JSON.stringify(flows, null, 2));
      // credentialSecret: false stores credentials unencrypted, so the test can write them directly.
      await writeFile(join(userDir, 'flows_cred.json'), JSON.stringify(credentials, null, 2));
      RED.init(server, {
        userDir,
        flowFile: 'flows.json',
        credentialSecret: false,
        httpAdminRoot: false,
        httpNodeRoot: '/',
        uiHost: '127.0.0.1',
        externalModules: { autoInstall: false, palette: { allowInstall: false } },
        logging: {
          console: { level: 'off' },
          collect: {
            level: 'warn',
            metrics: false,
            audit: false,
            handler: () => (entry: NodeRedLogEntry) => {
              if (entry.level <= LEVEL_WARN) warnings.push(entry);
            },
          },
        },
      });
      // RED.start() resolves before the flows run; 'flows:started' says they do.
      const flowsStarted = new Promise<void>((resolve) => RED.events.once('flows:started', () => resolve()));
      await RED.start();
      started = true;
      await flowsStarted;
    },
    hasNode: (id) => Boolean(RED.nodes.getNode(id)),
    async close() {
      if (started) await RED.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
