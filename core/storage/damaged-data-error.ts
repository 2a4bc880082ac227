/**
 * A file of the data dir that cannot be read back as written: a snapshot or log line that is not JSON, or a
 * record of the wrong shape. Start-up stops with this (naming the file, the place and how to recover) instead of
 * starting empty, which would overwrite what is left of the user's data at the next write.
 */
export class DamagedDataError extends Error {
  constructor(
    readonly file: string,
    readonly place: string,
    readonly recovery: string,
    options?: ErrorOptions,
  ) {
    super(`${file}: ${place}; ${recovery}`, options);
    this.name = 'DamagedDataError';
  }
}
