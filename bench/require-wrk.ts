import { spawnSync } from 'node:child_process';

/** What to tell someone whose machine has no wrk: the benches cannot give honest figures without it. */
export const WRK_MISSING = 'npm run bench needs wrk, the HTTP load generator: install it with `apt-get install wrk` (Debian/Ubuntu) or `brew install wrk` (macOS)';

/**
 * Throws with WRK_MISSING when `wrk` is not on the PATH. wrk is written in C and runs outside node, so it can
 * saturate a bare node:http server; a load generator in node (autocannon) shares the event loop's cores and caps
 * the bare server first, which flatters every ratio against it.
 */
export function requireWrk(): void {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  // `wrk --version` prints its usage and exits 1; only a failure to start it at all means it is missing.
  if (probe.error) throw new Error(WRK_MISSING, { cause: probe.error });
}
