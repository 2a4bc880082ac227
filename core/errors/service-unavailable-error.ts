import { AppError } from './app-error.js';

/** 503: the service cannot do this right now (the store cannot be written, a plugin is down). */
export class ServiceUnavailableError extends AppError {
  readonly status = 503;
  readonly code = 'unavailable';
  readonly title = 'Service Unavailable';
}
