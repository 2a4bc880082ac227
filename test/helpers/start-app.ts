import 'reflect-metadata';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock, Logger } from '@crateflow/sdk';
import { AppConfig } from '../../core/config/app-config.schema.js';
import { ConfigError } from '../../core/config/config-error.js';
import { createCrateflow, type Crateflow } from '../../core/create-crateflow.js';
import { compileStrict } from '../../core/schema/ajv.js';
import { formatSchemaErrors } from '../../core/schema/format-schema-errors.js';
import { createLogger } from '../../core/logging/create-logger.js';

export interface StartedApp {
  baseUrl: string;
  port: number;
  dataDir: string;
  crateflow: Crateflow;
  /** Stops the app; removes the temp dir unless it was given by the caller. */
  close(): Promise<void>;
}

export interface StartAppOptions {
  /** config.yaml content as an object; defaults fill the rest. `storage.dir` defaults to a new temp dir. */
  config?: Record<string, unknown>;
  clock?: Clock;
  log?: Logger;
  /** Folder relative plugin paths resolve against (default: the temp dir). */
  configDir?: string;
  /** Check every API response against its schema (default true; benchmarks turn it off, as production runs). */
  validateResponses?: boolean;
}

const validateConfig = compileStrict<AppConfig>(AppConfig);
/** Nothing listens on the discard port of loopback: a connection there is refused at once. */
const UNREACHABLE_MUSICBRAINZ = 'http://127.0.0.1:9';

/**
 * Starts a real Crateflow on 127.0.0.1:0 with its own temp data dir and DI container. Responses are checked
 * against their schemas. Blackhole and filesystem folders default to subfolders of the temp dir.
 */
export async function startApp(options: StartAppOptions = {}): Promise<StartedApp> {
  const tempDir = await mkdtemp(join(tmpdir(), 'crateflow-test-'));
  const input = structuredClone(options.config ?? {});
  const config = withTestDefaults(input, tempDir);
  // The default library folder exists, as `npm start` creates ./music on a first start; /health reports a
  // missing one as degraded.
  await mkdir(join(tempDir, 'music'), { recursive: true });
  if (!validateConfig(config)) throw new ConfigError('test config', formatSchemaErrors(validateConfig.errors));
  const crateflow = await createCrateflow({
    config,
    configDir: options.configDir ?? tempDir,
    configSource: 'test config',
    clock: options.clock,
    log: options.log ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    validateResponses: options.validateResponses ?? true,
  });
  const { port } = await crateflow.listen();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    dataDir: config.storage.dir,
    crateflow,
    close: async () => {
      await crateflow.close();
      await rm(tempDir, { recursive: true, force: true });
    },
  };
}

function withTestDefaults(input: Record<string, unknown>, tempDir: string): Record<string, unknown> {
  const section = (key: string): Record<string, unknown> => {
    const value = input[key];
    const record = value && typeof value === 'object' && !Array.isArray(value) ? { ...value } : {};
    input[key] = record;
    return record;
  };
  const server = section('server');
  server.host ??= '127.0.0.1';
  server.port ??= 0;
  const storage = section('storage');
  storage.dir ??= join(tempDir, 'data');
  const downloads = section('download_client');
  if ((downloads.type ?? 'blackhole') === 'blackhole') {
    downloads.requests_dir ??= join(tempDir, 'requests');
    downloads.complete_dir ??= join(tempDir, 'complete');
  }
  const library = section('library');
  if ((library.type ?? 'filesystem') === 'filesystem') library.path ??= join(tempDir, 'music');
  // MusicBrainz needs no setting (issue #28), so an app would otherwise ask musicbrainz.org itself, for example to
  // enrich what a test adds: unless a test names a server (a fake), the closed discard port refuses it at once.
  const metadata = section('metadata');
  const musicbrainz = metadata.musicbrainz && typeof metadata.musicbrainz === 'object' ? { ...metadata.musicbrainz } : {};
  if (!('url' in musicbrainz)) metadata.musicbrainz = { ...musicbrainz, url: UNREACHABLE_MUSICBRAINZ };
  return input;
}
