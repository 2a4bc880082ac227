/**
 * A structured logger (a pino child logger on the server), already tagged with the plugin name.
 * Pass context as the first argument; never log secrets.
 *
 * @example
 * log.warn({ status: res.status, url }, 'slskd answered with an error');
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  debug(msg: string): void;
  info(obj: object, msg?: string): void;
  info(msg: string): void;
  warn(obj: object, msg?: string): void;
  warn(msg: string): void;
  error(obj: object, msg?: string): void;
  error(msg: string): void;
  child(bindings: Record<string, unknown>): Logger;
}
