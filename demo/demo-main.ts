import { runDemo } from './run-demo.js';
import { runFakes } from './run-fakes.js';

/**
 * The entry point of the demo bundle (demo/start-demo.mjs builds it): `demo [options]` or `fakes [options]`.
 * The service itself runs from the same bundle `npm start` runs, whose path the launcher passes.
 */
export async function demoMain(argv: readonly string[], serviceScript: string): Promise<number> {
  const [mode, ...rest] = argv;
  if (mode === 'fakes') return runFakes(rest);
  if (mode === 'demo') return runDemo(rest, serviceScript);
  process.stderr.write(`unknown demo mode ${String(mode)} (demo or fakes)\n`);
  return 2;
}
