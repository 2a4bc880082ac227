import type { SlskdApi } from './slskd-api.js';

/**
 * Whether slskd takes `POST /transfers/downloads/batches` with `options.destination` (added in 0.26.0).
 * The version comes from `GET /application` (`version.current`, e.g. `"0.26.0"` or `"0.26.1.65534-4b2f…"`);
 * an unreadable version is treated as old, which is the safe side: the collision check still applies.
 *
 * @example
 * await supportsBatches(api) // true against 0.26.0, false against 0.25.1
 */
export async function supportsBatches(api: SlskdApi): Promise<boolean> {
  const { version } = await api.application();
  return atLeast(version, [0, 26]);
}

export function atLeast(version: string, minimum: readonly number[]): boolean {
  const parts = /^v?(\d+)\.(\d+)/.exec(version.trim());
  if (!parts) return false;
  const have = [Number(parts[1]), Number(parts[2])];
  for (let i = 0; i < minimum.length; i++) {
    const a = have[i] ?? 0;
    const b = minimum[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}
