import { pino } from 'pino';
import type { Logger } from '@crateflow/sdk';
import { hintUrlsIn } from './redact-urls.js';

/**
 * The service's JSON logger (pino, one line per entry on stdout). Paths that could carry secrets are redacted
 * as a second line of defence; code must not log them in the first place. URLs are reduced to scheme, host
 * and a hint in the finished line, wherever they hide (a plugin's error message, a stack, a nested field):
 * `library.url` with `user:pass@`, a webhook URL with a token in its path or query.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    base: { service: 'crateflow' },
    redact: {
      paths: ['password', '*.password', 'secret', '*.secret', 'key', '*.key', 'api_key', '*.api_key', 'authorization', '*.authorization', 'headers.cookie', 'headers.authorization'],
      censor: '[redacted]',
    },
    hooks: { streamWrite: hintUrlsIn },
  };
  return destination ? pino(options, destination) : pino(options);
}
