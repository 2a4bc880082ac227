import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

/**
 * `npm run bench`: imports every `bench/*.bench.ts` that exports `run()` and runs them one after another (each
 * prints its own figures). A bench that fails is reported and the others still run; the exit code is then 1.
 */
async function runAll(): Promise<number> {
  const files = (await readdir(BENCH_DIR)).filter((name) => name.endsWith('.bench.ts')).sort();
  const failed: string[] = [];
  const started = performance.now();
  for (const file of files) {
    const benchStarted = performance.now();
    try {
      const module: unknown = await import(pathToFileURL(join(BENCH_DIR, file)).href);
      const run = module && typeof module === 'object' && 'run' in module ? module.run : undefined;
      if (typeof run !== 'function') {
        process.stdout.write(`\n(skipped ${file}: it does not export run())\n`);
        continue;
      }
      await run();
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

process.exitCode = await runAll();
