/**
 * When a job that has done `done` of `total` units since `startedMs` should end, at its pace so far (clock ms);
 * undefined until there is a pace to go by.
 */
export function estimateEnd(startedMs: number, nowMs: number, done: number, total: number): number | undefined {
  if (total <= 0 || done <= 0) return undefined;
  if (done >= total) return nowMs;
  return Math.round(nowMs + (Math.max(0, nowMs - startedMs) * (total - done)) / done);
}
