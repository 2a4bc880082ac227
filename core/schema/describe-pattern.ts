import { PRINTABLE_TEXT } from './printable-text.js';

/**
 * What a `pattern` rule asks for, in words: a person reading a config error should not have to read a regular
 * expression. Patterns not listed here are described by the field's own `description`.
 */
const PATTERN_WORDS: ReadonlyArray<{ pattern: string; words: string; echo?: false }> = [
  { pattern: '^[0-9]+(ms|s|m|h|d)$', words: 'must be a duration like 10s (a whole number followed by ms, s, m, h or d: 500ms, 30s, 5m, 6h, 1d)' },
  { pattern: '^https?://', words: 'must be an http:// or https:// address' },
  { pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', words: 'must be an http:// or https:// address' },
  { pattern: '^\\$scrypt\\$', words: 'must be an scrypt hash starting with $scrypt$; make one with npm run hash-password' },
  // The value is not repeated: it is the control characters (a NUL, a line break) that make it unreadable.
  { pattern: PRINTABLE_TEXT, words: 'must not contain control characters (such as NUL, a tab or a line break)', echo: false },
];

export function describePattern(pattern: unknown, description: unknown, value: unknown): string {
  const entry = PATTERN_WORDS.find((candidate) => candidate.pattern === pattern);
  const known = entry?.words;
  const echo = entry?.echo !== false && typeof value === 'string' && value.length <= 80 && !/hash|key|secret|password/i.test(String(description ?? ''));
  const got = echo ? `, got "${value}"` : '';
  if (known) return `${known}${got}`;
  return typeof description === 'string' && description.length > 0 ? `is not in the expected form (${description})${got}` : `is not in the expected form${got}`;
}
