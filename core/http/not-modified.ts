/**
 * A handler's answer when the client's copy is current (its `If-None-Match` names the answer's ETag): the router
 * sends `304 Not Modified` with no body, keeping the headers the handler set (ETag, Cache-Control).
 */
export class NotModified {}
