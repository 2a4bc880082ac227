import { AppError } from './app-error.js';

/**
 * 421 Misdirected Request: the `Host` header names a server this is not (DNS rebinding, or a reverse proxy
 * whose public name is missing from `server.allowed_hosts`).
 */
export class HostNotAllowedError extends AppError {
  readonly status = 421;
  readonly code = 'host-not-allowed';
  readonly title = 'Misdirected Request';
  constructor(readonly host: string) {
    super(`this service does not answer to the host name in "${host.slice(0, 100)}"; if a reverse proxy passes that name on, add it to server.allowed_hosts`);
  }
  override extensions() {
    return { errors: [{ path: 'headers.host', message: 'must be localhost, an IP address, server.host or one of server.allowed_hosts' }] };
  }
}
