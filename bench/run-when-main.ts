import { argv } from 'node:process';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { parseBenchOptions, type BenchOptions } from './bench-options.js';

/**
 * Runs a bench when its file is the process entry point (`tsx bench/health.bench.ts --quick`), with the options
 * on its command line, and does nothing when run-all.ts imports it. Sets a failing exit code instead of leaving
 * a rejected promise behind.
 */
export function runWhenMain(moduleUrl: string, run: (options: BenchOptions) => Promise<void>): void {
  const entry = argv[1];
  if (!entry || pathToFileURL(resolve(entry)).href !== moduleUrl) return;
  Promise.resolve()
    .then(() => run(parseBenchOptions(argv.slice(2))))
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    });
}
