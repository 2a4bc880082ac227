/**
 * The first `count` tab-separated fields in front of an index line's record JSON, each decoded on its own: they are
 * all an index keeps, and slices of the decoded line would keep every record's JSON in memory with them. A name key
 * among them may have been written by an earlier version (see isCurrentNameKey).
 */
export function keyFieldsOf(line: Buffer, count: number): string[] {
  const fields: string[] = [];
  let start = 0;
  while (fields.length < count) {
    const tab = line.indexOf(9, start);
    if (tab === -1) break;
    fields.push(line.toString('utf8', start, tab));
    start = tab + 1;
  }
  return fields;
}

/** A key field as stored: no tab or newline, which would split the line. */
export function cleanKeyField(text: string | undefined): string {
  return text ? text.replace(/[\t\r\n]/g, ' ') : '';
}
