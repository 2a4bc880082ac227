import { pino } from 'pino';
import type { Logger } from '@crateflow/sdk';

/**
 * The service's JSON logger (pino, one line per entry on stdout). Paths that could carry secrets are redacted
 * as a second line of defence; code must not log them in the first place.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: { service: 'crateflow' },
    redact: {
      paths: ['password', '*.password', 'secret', '*.secret', 'key', '*.key', 'api_key', '*.api_key', 'authorization', '*.authorization', 'headers.cookie', 'headers.authorization'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
