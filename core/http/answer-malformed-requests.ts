import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_TYPE_PREFIX } from './problem-middleware.js';

const REFUSALS: Record<string, { status: number; title: string; code: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, title: 'Request Header Fields Too Large', code: 'headers-too-large', detail: 'the request line and headers exceed 16 KiB' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, title: 'Request Timeout', code: 'request-timeout', detail: 'the request did not arrive in time' },
};
const MALFORMED = { status: 400, title: 'Bad Request', code: 'malformed-request', detail: 'the request is not valid HTTP/1.1' };

/**
 * Answers what Node's HTTP parser rejects before the app sees it (malformed request lines or headers, headers
 * over the size limit, an unsupported `Expect`) with the same application/problem+json as every other error,
 * instead of Node's bare status line. The connection is closed after the answer: a parser error leaves it in
 * an unknown state.
 */
export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // The client is gone (reset) or the answer is already on its way: nothing to say.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = (err.code && REFUSALS[err.code]) || MALFORMED;
    const body = JSON.stringify({ type: PROBLEM_TYPE_PREFIX + refusal.code, title: refusal.title, status: refusal.status, detail: refusal.detail });
    socket.end(
      `HTTP/1.1 ${refusal.status} ${refusal.title}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  server.on('checkExpectation', (req, res) => {
    const body = JSON.stringify({
      type: `${PROBLEM_TYPE_PREFIX}expectation-failed`,
      title: 'Expectation Failed',
      status: 417,
      detail: 'only "Expect: 100-continue" is supported',
    });
    res.writeHead(417, { 'Content-Type': 'application/problem+json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body);
    req.resume();
  });
}
