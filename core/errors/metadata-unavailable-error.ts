import { AppError } from './app-error.js';

/**
 * 503: a route that needs MusicBrainz was called while `metadata.contact` is not set. MusicBrainz's etiquette
 * requires a contact in the User-Agent, so without one the service makes no request at all. The operator fixes
 * this in config, so the detail (which names the key) is shown.
 */
export class MetadataUnavailableError extends AppError {
  readonly status = 503;
  readonly code = 'metadata-unavailable';
  readonly title = 'Metadata Unavailable';

  constructor(readonly configKey = 'metadata.contact') {
    super(`MusicBrainz is not configured: set ${configKey} (an e-mail address or a URL where MusicBrainz can reach you) to use search and lookups by mbid`);
  }

  override get clientFault(): boolean {
    return true; // a configuration choice, not a failure; the answer says what to set
  }

  override extensions(): Record<string, unknown> {
    return { config_key: this.configKey };
  }
}
