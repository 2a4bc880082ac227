/** What `crateflow --help` prints. */
export function usage(version: string): string {
  return `Crateflow ${version}: self-hosted music acquisition with a human in the loop

Usage:
  crateflow [--config PATH]     start the service
  crateflow hash-password       print an scrypt hash of a password read from stdin
                                (for ui.auth.password_hash or an API key's key_hash)
  crateflow backup FILE [--config PATH]
                                copy the database (storage.dir/crateflow.db) into FILE, a new file,
                                while the service runs; then check the copy and print what it holds
  crateflow --help              show this help
  crateflow --version           print the version

Options:
  --config PATH   the config file (default: $CRATEFLOW_CONFIG, else ./config.yaml if it exists, else built-in
                  defaults). Relative paths in it (storage.dir, library.path, download folders) are relative to
                  the folder the config file is in; with built-in defaults, to the current directory.

Environment:
  CRATEFLOW_CONFIG  the config file, when --config is not given
  PORT              overrides server.port

Through npm, put the options after --: npm start -- --config /etc/crateflow/config.yaml
                                         npm run backup -- /backups/crateflow-monday.db
`;
}
