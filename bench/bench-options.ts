import { parseArgs } from 'node:util';

/** Command-line options of `npm run bench` and of one bench run alone (`tsx bench/scale.bench.ts --quick`). */
export interface BenchOptions {
  /**
   * Short runs at small scale, to prove a bench works on a busy machine; the figures are then not worth
   * comparing. Benches that know it shorten their durations and sizes.
   */
  quick: boolean;
  /** scale.bench: the stored queue sizes to measure (default 1,000 / 10,000 / 100,000 / 1,000,000). */
  sizes?: readonly number[];
  /** scale.bench: the mixes of stored items to measure (pending, decided, waiting; default all three). */
  mixes?: readonly string[];
  /** run-all: only the benches with these names (`scale` for scale.bench.ts). */
  only?: readonly string[];
}

export const BENCH_USAGE = 'usage: npm run bench -- [--quick] [--sizes 1000,10000] [--mixes pending,decided,waiting] [--only scale,health]';

export function parseBenchOptions(args: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...args],
    options: { quick: { type: 'boolean', default: false }, sizes: { type: 'string' }, mixes: { type: 'string' }, only: { type: 'string' } },
    strict: true,
  });
  const list = (text: string | undefined) => text?.split(',').map((part) => part.trim()).filter(Boolean);
  const sizes = list(values.sizes)?.map((part) => {
    const size = Number(part.replaceAll('_', ''));
    if (!Number.isInteger(size) || size < 10) throw new Error(`--sizes: expected whole numbers of at least 10, got "${part}"\n${BENCH_USAGE}`);
    return size;
  });
  const mixes = list(values.mixes);
  const only = list(values.only);
  return { quick: values.quick ?? false, ...(sizes ? { sizes } : {}), ...(mixes ? { mixes } : {}), ...(only ? { only } : {}) };
}
