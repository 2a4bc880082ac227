import type { PluginHealth } from '@crateflow/sdk';

/**
 * Plugin health probes shared by every caller for `maxAgeMs`, with one probe in flight at a time. `/health` is
 * public and polled by monitors: probing slskd or the music server on every request would let anyone turn it
 * into a flood against them, and would cost every /health the backends' round trips.
 */
export function cachedProbe(probe: () => Promise<Map<string, PluginHealth>>, now: () => number, maxAgeMs: number): () => Promise<Map<string, PluginHealth>> {
  let last: { at: number; result: Map<string, PluginHealth> } | undefined;
  let running: Promise<Map<string, PluginHealth>> | undefined;
  return () => {
    if (last && now() - last.at < maxAgeMs) return Promise.resolve(last.result);
    running ??= probe()
      .then((result) => {
        last = { at: now(), result };
        return result;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
}
