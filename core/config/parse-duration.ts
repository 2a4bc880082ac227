const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30s` → 30000. The config schema guarantees the format; anything else is a programming error. */
export function parseDuration(text: string): number {
  const match = /^([0-9]+)(ms|s|m|h|d)$/.exec(text);
  if (!match?.[1] || !match[2]) throw new Error(`"${text}" is not a duration`);
  const unit = match[2];
  if (!(unit in UNIT_MS)) throw new Error(`"${text}" has an unknown unit`);
  return Number(match[1]) * UNIT_MS[unit as keyof typeof UNIT_MS];
}
