import { connect } from 'node:net';

/** What came back on a raw connection. `status` is 0 when nothing parseable came back before the close. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The whole answer, for failure messages. */
  text: string;
}

/**
 * Writes `bytes` on a fresh TCP connection and reads the first answer until the server closes the connection,
 * the answer is complete (by Content-Length), or `timeoutMs` passes. For what no HTTP client will send: bare
 * CR/LF in headers, NUL bytes, conflicting lengths, smuggling attempts, broken request lines.
 */
export function sendRaw(host: string, port: number, bytes: Buffer | string, timeoutMs = 5000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks).toString('latin1')));
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const answer = parseAnswer(Buffer.concat(chunks).toString('latin1'));
      const length = Number(answer.headers['content-length']);
      if (answer.status > 0 && Number.isFinite(length) && Buffer.byteLength(answer.body, 'latin1') >= length) finish();
    });
    // A reset after (or instead of) an answer is how a server refuses garbage; the answer so far is the result.
    socket.on('error', finish);
    socket.on('close', finish);
  });
}

function parseAnswer(text: string): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  const head = end >= 0 ? text.slice(0, end) : text;
  const [statusLine = '', ...lines] = head.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: match?.[1] ? Number(match[1]) : 0, headers, body: end >= 0 ? text.slice(end + 4) : '', text };
}

/**
 * Requests no client library would produce, each a complete byte string for one connection. `waits`: the
 * request is incomplete on purpose (a promised body that never comes), so the right answer is no answer yet.
 */
export function rawHostileRequests(token: string): { kind: string; bytes: Buffer; waits: boolean }[] {
  const json = '{"artist":"Raw","album":"Request"}';
  const post = (path: string, extra: string, body = json) =>
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}Connection: close\r\n\r\n`;
  const cases: [string, string | Buffer][] = [
    ['header injection: CR LF inside a header value', get('/api/v1/queue/pending', 'X-Request-Id: abc\rSet-Cookie: evil=1\r\n')],
    ['header injection: bare LF line ending', 'GET /api/v1/queue/pending HTTP/1.1\nHost: localhost\nX-Request-Id: a\nConnection: close\n\n'],
    ['header injection: NUL byte in a value', get('/api/v1/queue/pending', 'X-Request-Id: a\u0000b\r\n')],
    ['header injection: obs-fold continuation', get('/api/v1/queue/pending', 'X-Request-Id: a\r\n  Set-Cookie: evil=1\r\n')],
    ['header injection: space before colon', get('/api/v1/queue/pending', 'Remote-User : admin\r\n')],
    ['header: latin-1 bytes in a value', Buffer.concat([Buffer.from('GET /api/v1/queue/pending HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: '), Buffer.from([0xe9, 0xff, 0x80]), Buffer.from('\r\nConnection: close\r\n\r\n')])],
    ['header: UTF-8 bytes in Remote-User', Buffer.concat([Buffer.from('GET /api/v1/auth/info HTTP/1.1\r\nHost: localhost\r\nRemote-User: '), Buffer.from('Ωmega\u202e', 'utf8'), Buffer.from('\r\nConnection: close\r\n\r\n')])],
    ['headers: 20 KiB of headers', get('/api/v1/queue/pending', `X-Big: ${'b'.repeat(20_000)}\r\n`)],
    ['headers: 3,000 small headers', get('/api/v1/queue/pending', Array.from({ length: 3000 }, (_, i) => `X-H${i}: v\r\n`).join(''))],
    ['request line: 20 KiB path', get(`/api/v1/queue/pending?q=${'q'.repeat(20_000)}`)],
    ['request line: absolute-form target', get(`http://evil.example/api/v1/queue/pending`)],
    ['request line: raw UTF-8 in path', Buffer.concat([Buffer.from('GET /api/v1/jobs/'), Buffer.from('ü😀\u202e', 'utf8'), Buffer.from(' HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')])],
    ['request line: raw dot segments', get(`/api/v1/queue/../../../../tmp/${token}`)],
    ['request line: backslashes', get(`/api/v1\\queue\\pending`)],
    ['request line: double slashes', get('/api/v1//queue//pending')],
    ['request line: HTTP/0.9', 'GET /api/v1/queue/pending\r\n\r\n'],
    ['request line: HTTP/2 preface on HTTP/1', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['request line: unknown method', 'FOO /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'],
    ['request line: lower-case method', 'get /api/v1/queue/pending HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'],
    ['request line: no Host header', 'GET /api/v1/queue/pending HTTP/1.1\r\nConnection: close\r\n\r\n'],
    ['request line: two Host headers', get('/api/v1/queue/pending', 'Host: evil.example\r\n')],
    ['smuggling: Content-Length and Transfer-Encoding', `POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\nGET /api/v1/queue/pending HTTP/1.1\r\nHost: localhost\r\n\r\n`],
    ['smuggling: two different Content-Lengths', post('/api/v1/queue', 'Content-Length: 5\r\n')],
    ['smuggling: Transfer-Encoding: chunked, identity', `POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked, identity\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n`],
    ['chunked: invalid chunk size', `POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
    ['chunked: 2 MiB in chunks (no Content-Length)', `POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${`10000\r\n${'['.repeat(0x10000)}\r\n`.repeat(32)}0\r\n\r\n`],
    ['body: Content-Length larger than the body', `POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n${json}`],
    ['body: negative Content-Length', `POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: -1\r\nConnection: close\r\n\r\n${json}`],
    ['body: Content-Length of 2^64', `POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 18446744073709551616\r\nConnection: close\r\n\r\n${json}`],
    ['body: declared 5 GiB', `POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5368709120\r\nConnection: close\r\n\r\n${json}`],
    ['body: invalid UTF-8 bytes in JSON', Buffer.concat([Buffer.from('POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 19\r\nConnection: close\r\n\r\n{"artist":"'), Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80, 0xff]), Buffer.from('"}')])],
    ['body: UTF-16 JSON', Buffer.concat([Buffer.from(`POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json; charset=utf-16le\r\nContent-Length: ${Buffer.byteLength(json, 'utf16le')}\r\nConnection: close\r\n\r\n`), Buffer.from(json, 'utf16le')])],
    ['body: Expect: 100-continue then nothing', `POST /api/v1/queue HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 10\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`],
    ['body: Expect: something-else', post('/api/v1/queue', 'Expect: 200-ok\r\n')],
    ['pipelining: three requests at once', `${get('/api/v1/auth/info').replace('Connection: close\r\n', '')}${get('/api/v1/queue/pending').replace('Connection: close\r\n', '')}${get('/health')}`],
  ];
  const incomplete = new Set(['body: Content-Length larger than the body', 'body: Expect: 100-continue then nothing']);
  return cases.map(([kind, bytes]) => ({ kind, bytes: typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes, waits: incomplete.has(kind) }));
}
