import type { IncomingMessage } from 'node:http';

/** Thrown when a body is larger than allowed; the receiver answers 413. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`request body is larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * Reads the exact request bytes. The signature covers these bytes, so no parser may run first: keepBodyUnparsed()
 * keeps the editor's body parsers (Node-RED's default settings serve the editor at `/`) off the route. If a global `httpNodeMiddleware` already read the stream into
 * a Buffer `req.body`, that Buffer is used.
 */
export function readRawBody(req: IncomingMessage & { body?: unknown }, limit: number): Promise<Buffer> {
  if (Buffer.isBuffer(req.body)) return Promise.resolve(req.body);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  if (req.readableEnded) return Promise.reject(new Error('the request body was consumed before the signature could be checked'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
