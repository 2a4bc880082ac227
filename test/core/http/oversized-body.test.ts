import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { MAX_DISCARDED_BODY_BYTES } from '../../../core/http/drain-unread-body.js';
import { startApp, type StartedApp } from '../../helpers/start-app.js';

const MiB = 1024 * 1024;

interface Exchange {
  /** Bytes of the body the server let us write before it closed or answered and closed. */
  written: number;
  /** The error a write or the connection hit, if any (EPIPE, ECONNRESET). */
  error: string | null;
  answer: string;
}

/**
 * Sends a POST declaring `declared` bytes on a raw socket and writes up to `send` bytes of body, as fast as the
 * server takes them, then reads until the server closes. Reports how far the write got and what came back.
 */
function postBody(port: number, declared: number, send: number, connection: 'close' | 'keep-alive'): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunk = Buffer.alloc(64 * 1024, 0x5b);
    let written = 0;
    let error: string | null = null;
    let answer = '';
    const timer = setTimeout(() => socket.destroy(new Error('no close from the server within 20 s')), 20_000);
    socket.on('data', (data: Buffer) => (answer += data.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => (error ??= err.code ?? err.message));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ written, error, answer });
    });
    socket.write(
      `POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        `Connection: ${connection}\r\nContent-Length: ${declared}\r\n\r\n`,
    );
    const pump = (): void => {
      while (written < send && !socket.destroyed) {
        written += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
      // Keep-alive: the server decides when the exchange is over; ask it to close once the body is sent.
      if (written >= send && connection === 'keep-alive' && !socket.destroyed) socket.end();
    };
    pump();
  });
}

describe('oversized request bodies', () => {
  let app: StartedApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  it('reads the whole 5 MiB body and answers the 413 problem without resetting the connection', async () => {
    const result = await postBody(app.port, 5 * MiB, 5 * MiB, 'close');
    assert.equal(result.error, null, `the client saw ${result.error} after writing ${result.written} bytes; answer so far: ${result.answer.slice(0, 80)}`);
    assert.equal(result.written, 5 * MiB);
    assert.match(result.answer, /^HTTP\/1\.1 413 /);
    assert.match(result.answer, /content-type: application\/problem\+json/i);
    assert.match(result.answer, /"status":413/);
  });

  it('answers a streamed 5 MiB body sent by fetch with the 413 problem', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(0x5b);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 5 * MiB) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const init: RequestInit = { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' };
    const res = await fetch(`${app.baseUrl}/api/v1/queue`, init);
    assert.equal(res.status, 413);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    const problem: unknown = await res.json();
    assert.ok(problem && typeof problem === 'object' && 'status' in problem && problem.status === 413);
  });

  it('closes the connection after the 413 when the declared body exceeds the discard bound, instead of reading it all', async () => {
    const declared = 1024 * MiB;
    const result = await postBody(app.port, declared, 256 * MiB, 'keep-alive');
    assert.match(result.answer, /^HTTP\/1\.1 413 /);
    assert.match(result.answer, /connection: close/i);
    assert.ok(result.written < 64 * MiB, `the server read ${result.written} bytes of a body it had refused (bound ${MAX_DISCARDED_BODY_BYTES})`);
  });
});
