import { setTimeout as delay } from 'node:timers/promises';

/** Polls `condition` every few ms until it holds; fails naming `what` after `timeoutMs`, a liveness bound (issue #27). */
export async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await delay(5);
  }
}
