/**
 * MusicBrainz refused a request for a reason retrying cannot fix (400, 403): a malformed query or a User-Agent it
 * will not serve. Busy and unreachable answers become the sdk's `RetryLaterError` instead.
 */
export class MusicBrainzError extends Error {
  readonly code = 'musicbrainz-refused';
  constructor(
    message: string,
    readonly status: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'MusicBrainzError';
  }
}
