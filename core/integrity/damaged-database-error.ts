/** The database file is damaged: the service refuses to start on it rather than serve or overwrite what is left. */
export class DamagedDatabaseError extends Error {
  constructor(readonly file: string, detail: string, options?: ErrorOptions) {
    super(`the database ${file} is damaged (${detail}). Stop Crateflow, move ${file} and its -wal and -shm files aside, and copy your latest backup (npm run backup -- <file>) in its place; see the README's "Backup and restore"`, options);
    this.name = 'DamagedDatabaseError';
  }
}
