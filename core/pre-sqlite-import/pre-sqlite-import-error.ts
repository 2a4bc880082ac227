/**
 * The data of an earlier version could not be imported into the database: a file of the old data dir that cannot
 * be read as written (a line that is not JSON, a record of the wrong shape). Nothing was imported and every old file
 * is where it was, unchanged, so the start can simply be tried again once the file is fixed or restored.
 */
export class PreSqliteImportError extends Error {
  constructor(
    /** The old file at fault (a path inside storage.dir). */
    readonly file: string,
    /** Where in it: "line 12", "record \"abc\" of queue". */
    readonly place: string,
    readonly problem: string,
    options?: ErrorOptions,
  ) {
    super(`cannot import the data of an earlier version: ${file}: ${place}: ${problem}; nothing was imported and the old files are as they were (restore that file from a backup, or fix it by hand, then start again)`, options);
    this.name = 'PreSqliteImportError';
  }
}
