import { AppError } from './app-error.js';

/**
 * 503: a plugin that serves this request did not answer within its deadline, or failed. The client sees only
 * the problem type (`plugin-unavailable`) and may try again later; the log names the plugin and the cause.
 */
export class PluginUnavailableError extends AppError {
  readonly status = 503;
  readonly code = 'plugin-unavailable';
  readonly title = 'Plugin Unavailable';
}
