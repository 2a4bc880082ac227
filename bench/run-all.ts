import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseBenchOptions, type BenchOptions } from './bench-options.js';
import { requireWrk } from './require-wrk.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

/**
 * `npm run bench`: imports every `bench/*.bench.ts` that exports `run()` and runs them one after another (each
 * prints its own figures), passing on `--quick`, `--sizes`, `--mixes` and `--only` (see bench-options.ts). A bench that
 * fails is reported and the others still run; the exit code is then 1. Without wrk nothing runs: every HTTP
 * figure needs it.
 */
async function runAll(options: BenchOptions): Promise<number> {
  requireWrk();
  const wanted = (file: string) => !options.only || options.only.some((name) => file === `${name}.bench.ts`);
  const files = (await readdir(BENCH_DIR)).filter((name) => name.endsWith('.bench.ts') && wanted(name)).sort();
  if (files.length === 0) throw new Error(`no bench matches --only ${options.only?.join(',') ?? ''}`);
  const failed: string[] = [];
  const started = performance.now();
  if (options.quick) process.stdout.write('--quick: short runs at small scale, to prove the benches work; do not compare these figures\n');
  for (const file of files) {
    const benchStarted = performance.now();
    try {
      const module: unknown = await import(pathToFileURL(join(BENCH_DIR, file)).href);
      const run = module && typeof module === 'object' && 'run' in module ? module.run : undefined;
      if (typeof run !== 'function') {
        process.stdout.write(`\n(skipped ${file}: it does not export run())\n`);
        continue;
      }
      await run(options);
      process.stdout.write(`  (${file}: ${seconds(benchStarted)})\n`);
    } catch (err: unknown) {
      // One broken bench must not hide the others' figures; the failure is printed and sets the exit code.
      failed.push(file);
      process.stdout.write(`\n!! ${file} failed after ${seconds(benchStarted)}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
  }
  process.stdout.write(`\n${files.length} bench files in ${seconds(started)}${failed.length > 0 ? `; failed: ${failed.join(', ')}` : ''}\n`);
  return failed.length > 0 ? 1 : 0;
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

try {
  process.exitCode = await runAll(parseBenchOptions(process.argv.slice(2)));
} catch (err: unknown) {
  // A missing wrk or a bad option: one clear line rather than a stack trace.
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
