import 'reflect-metadata';
import { dirname } from 'node:path';
import { configPathFrom, loadConfig } from './config/load-config.js';
import { ConfigError } from './config/config-error.js';
import { parseArguments } from './cli/parse-arguments.js';
import { usage } from './cli/usage.js';
import { createDefaultMusicFolder } from './config/create-default-music-folder.js';
import { mergeProblems } from './config/merge-problems.js';
import { createCrateflow } from './create-crateflow.js';
import { createHttpServer } from './http/create-http-server.js';
import { reservePort } from './http/reserve-port.js';
import { createLogger } from './logging/create-logger.js';
import { isLoopback } from './net/is-loopback.js';
import { checkPlugins } from './plugins/plugin-host.js';
import { planPluginMounts, slotChoice } from './plugins/plugin-mounts.js';
import { readVersion } from './version.js';
import type { DamagedDatabaseError } from './integrity/damaged-database-error.js';

/**
 * `crateflow [--config PATH]` runs the service; `crateflow hash-password` prints a password hash; `crateflow backup
 * FILE` copies the database while the service runs; `--help` and
 * `--version` print and exit 0. A command line it cannot follow exits 2 (the usual status of a usage error) before
 * anything is read or created.
 */
async function main(argv: readonly string[]): Promise<number> {
  const request = parseArguments(argv);
  if ('mistake' in request) {
    process.stderr.write(`crateflow: ${request.mistake}\nRun "crateflow --help" for usage.\n`);
    return 2;
  }
  if (request.command === 'help') {
    process.stdout.write(usage(readVersion()));
    return 0;
  }
  if (request.command === 'version') {
    process.stdout.write(`${readVersion()}\n`);
    return 0;
  }
  if (request.command === 'hash-password') {
    const { runHashPassword } = await import('./cli/hash-password.js');
    return runHashPassword(process.stdin, process.stdout, process.stderr);
  }
  if (request.command === 'backup') {
    const { runBackup } = await import('./cli/backup-database.js');
    return runBackup(request, process.env, process.stdout, process.stderr);
  }
  const location = configPathFrom(request.configPath, process.env);
  const loaded = await loadConfig(location, process.env);
  if (loaded.problems.length > 0) {
    // Report plugin blocks too, so one run shows every problem. The config failed validation, so its shape is
    // not guaranteed (`ui: 5`, `plugins: "x"`): reading it may throw, synchronously too, and then the schema
    // problems alone are reported.
    const plugins = await (async () => checkPlugins(planPluginMounts(loaded.config), slotChoice(loaded.config), dirname(location.path)))().catch(() => undefined);
    const all = mergeProblems(loaded.problems, plugins?.problems ?? []);
    process.stderr.write(`${new ConfigError(loaded.source, all).message}\n`);
    return 1;
  }
  // Listen first: a start that cannot (the port is taken, often by a running Crateflow) must not touch the data dir.
  const log = createLogger(loaded.config.log.level);
  const reserved = await reservePort(loaded.config.server.port, loaded.config.server.host, (listener) => createHttpServer(listener, loaded.config.server, log)).catch((err: unknown) => {
    process.stderr.write(`Crateflow could not listen on ${loaded.config.server.host}:${loaded.config.server.port}: ${describe(err)}\n`);
    return undefined;
  });
  if (!reserved) return 1;
  const crateflow = await createCrateflow({ log, config: loaded.config, configDir: dirname(location.path), configSource: loaded.source }).catch((err: unknown) => {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return undefined;
    }
    process.stderr.write(`Crateflow could not start: ${describe(err)}\n`);
    return undefined;
  });
  if (!crateflow) {
    reserved.server.close();
    return 1;
  }
  await createDefaultMusicFolder(loaded.config, log, dirname(location.path)).catch((err: unknown) => {
    // Not fatal: the library reports the missing folder as unhealthy, which says what to fix.
    log.warn({ err }, 'could not create the default music folder ./music');
  });
  const { port, host } = await crateflow.listen(reserved).catch(async (err: unknown) => {
    process.stderr.write(`Crateflow could not listen on ${loaded.config.server.host}:${loaded.config.server.port}: ${describe(err)}\n`);
    await crateflow.close();
    process.exit(1);
  });
  if (!loaded.config.ui.auth.enabled && !isLoopback(host)) {
    log.warn({ host }, 'authentication is disabled and the server listens beyond loopback: put a forward-auth proxy in front (ui.auth in config.yaml)');
  }
  log.info({ host, port, config: loaded.source }, 'crateflow is listening');

  const damaged = await new Promise<DamagedDatabaseError | undefined>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'shutting down');
      resolve(undefined);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    crateflow.integrity.then(
      (damage) => {
        if (damage) resolve(damage);
      },
      (err: unknown) => log.error({ err }, 'the background integrity check of the database could not run'),
    );
  });
  if (damaged) log.error({ file: damaged.file }, damaged.message);
  await crateflow.close();
  log.info('stopped');
  if (damaged) {
    process.stderr.write(`Crateflow stopped: ${damaged.message}\n`);
    return 1;
  }
  return 0;
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.cause instanceof Error ? `${err.message} (${err.cause.message})` : err.message;
  return String(err);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`Crateflow stopped unexpectedly: ${describe(err)}\n`);
    process.exit(1);
  },
);
