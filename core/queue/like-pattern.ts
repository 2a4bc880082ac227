/**
 * A LIKE pattern (with `ESCAPE '\'`) for text that holds ` word` somewhere: a word starting with `prefix`, whatever
 * `%`, `_` or `\` the prefix contains.
 */
export function prefixPattern(prefix: string): string {
  return `% ${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
