/**
 * A response body already serialised to JSON, for answers that many requests share between two changes (a
 * page of the pending queue that the UI and chat bots poll): the text is built once, not once per request.
 * The router sends it as `application/json`; it must be what the route's response schema describes.
 */
export class SerializedJson {
  constructor(readonly text: string) {}
}
