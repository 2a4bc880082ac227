import { AppError } from '../errors/app-error.js';

/**
 * 503: previews cannot be had right now: the provider is over its quota, unreachable or failing, or previews are
 * switched off (`previews.type: none`). `retry_after_s` (and `Retry-After`) says when asking again makes sense;
 * with previews off there is nothing to wait for and `config_key` names what to change. Causes go to the log only.
 */
export class PreviewsUnavailableError extends AppError {
  readonly status = 503;
  readonly code = 'previews-unavailable';
  readonly title = 'Previews Unavailable';

  private constructor(
    message: string,
    readonly retryAfterS: number | undefined,
    readonly configKey: string | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  /** The provider cannot answer now; try again in `retryAfterS`. */
  static later(provider: string, retryAfterS: number, options?: ErrorOptions & { overQuota?: boolean }): PreviewsUnavailableError {
    const why = options?.overQuota ? 'is over its request quota' : 'cannot be reached or failed';
    return new PreviewsUnavailableError(`the preview provider ${provider} ${why}; try again in ${retryAfterS} s`, retryAfterS, undefined, options);
  }

  /** Too many albums are being looked up at once (each costs the provider requests); a moment later there is room. */
  static busy(): PreviewsUnavailableError {
    return new PreviewsUnavailableError('too many previews are being looked up at once; try again in a moment', 1, undefined);
  }

  /** `previews.type: none`. */
  static switchedOff(): PreviewsUnavailableError {
    return new PreviewsUnavailableError('previews are switched off: set previews.type (e.g. deezer) to listen before deciding', undefined, 'previews.type');
  }

  override get clientFault(): boolean {
    return true; // another service's quota or outage, or a config choice: the answer says what to do, and it is logged where it happens
  }

  override extensions(): Record<string, unknown> {
    return { ...(this.retryAfterS === undefined ? {} : { retry_after_s: this.retryAfterS }), ...(this.configKey ? { config_key: this.configKey } : {}) };
  }
}
