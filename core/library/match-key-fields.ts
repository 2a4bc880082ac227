import { decodeNameKey } from './library-index.js';

/**
 * The first `count` tab-separated fields in front of an index line's record JSON whose field `nameField` (0-based) is a name key, each
 * decoded on its own: they are all an index keeps, and slices of the decoded line would keep every record's JSON
 * in memory with them. Name keys written by earlier versions hold another separator, which the decoding replaces.
 */
export function keyFieldsOf(line: Buffer, count: number, nameField: number): string[] {
  const fields: string[] = [];
  let start = 0;
  while (fields.length < count) {
    const tab = line.indexOf(9, start);
    if (tab === -1) break;
    fields.push(fields.length === nameField ? decodeNameKey(line, start, tab) : line.toString('utf8', start, tab));
    start = tab + 1;
  }
  return fields;
}

/** A key field as stored: no tab or newline, which would split the line. */
export function cleanKeyField(text: string | undefined): string {
  return text ? text.replace(/[\t\r\n]/g, ' ') : '';
}
