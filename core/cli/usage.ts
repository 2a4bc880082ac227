/** What `crateflow --help` prints. */
export function usage(version: string): string {
  return `Crateflow ${version}: self-hosted music acquisition with a human in the loop

Usage:
  crateflow [--config PATH]     start the service
  crateflow hash-password       print an scrypt hash of a password read from stdin
                                (for ui.auth.password_hash or an API key's key_hash)
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
`;
}
