import { gzipSync } from 'node:zlib';
import { isRecord, type JsonRecord } from './json-fields.js';
import { alternatives, sampleValid, type RouteInfo } from './openapi-routes.js';
import { between, pick } from './seeded-random.js';

/** One generated request. `path` is already encoded as it goes on the wire (it may be deliberately malformed). */
export interface HostileRequest {
  kind: string;
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface CorpusContext {
  /** Ids the service handed out (queue items, wishlist items, deliveries), so some requests hit real records. */
  knownIds(): readonly string[];
  /** A loopback receiver: the only place a live webhook test may send to. */
  liveWebhookUrl: string;
  /** Unique marker put into path-traversal names, searched for on disk afterwards. */
  escapeToken: string;
}

/** Strings that break naive code: traversal, control and format characters, lone surrogates, RTL, injections. */
export function hostileStrings(token: string): string[] {
  return [
    '', ' ', '.', '..', '...', '../', '..\\', '../../../../../../tmp/' + token, '..\\..\\..\\..\\tmp\\' + token, '/tmp/' + token, `./../${token}`,
    `....//....//${token}`, `..%2f..%2f${token}`, `%2e%2e%2f${token}`, 'C:\\Windows\\System32', 'file:///etc/passwd', '\\\\server\\share',
    `${token}/../../../etc/passwd`, `${token}\u0000.json`, 'a\u0000b', '\u0000', '\u0007\u0008\u001b[31m', 'line\nbreak', 'cr\rlf\r\nSet-Cookie: x=1',
    '\u202Egnp.exe', 'abc\u202Edef\u202C', '\u200B', '\u200B\u200C\u200D\u2060\uFEFF', '\u061C\u200E\u200F', 'مرحبا بالعالم', 'שלום עולם',
    '\uD800', '\uDFFF', 'x\uD83Dy', '\uDE00\uD83D', '😀', '👩🏽‍🚀👨‍👩‍👧‍👦', '🏳️‍🌈'.repeat(40), 'e\u0301\u0301\u0301', 'Z̸̡̛̪̼̜̈́̈̾͒a̸̧̓l̸g̸o̸', 'ﷺ'.repeat(30),
    'Ⅻ ㎆ ﬁ', 'İıſK', 'ǅ', '\uFFFD', '\uFFFE\uFFFF', '\u{10FFFF}', '𝕬𝖗𝖙𝖎𝖘𝖙', '日本語のアルバム', 'Sigur Rós — ( )', 'AC/DC', 'The The',
    '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "' OR '1'='1' --", '${jndi:ldap://127.0.0.1/a}', '{{7*7}}', '%s%s%s%n',
    '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'NaN', 'null', 'undefined', 'true', '-0', '1e309',
    'CON', 'NUL', 'COM1', 'aux.json', ' leading', 'trailing ', '\t\t', 'x'.repeat(64), 'x'.repeat(65), 'é'.repeat(200), '😀'.repeat(200), 'x'.repeat(500),
  ];
}

/** Already percent-encoded (or raw) forms, sent as they are: invalid UTF-8, overlong dots, double encoding. */
const RAW_SEGMENTS = [
  '%ED%A0%80', '%ED%BF%BF', '%C0%AE%C0%AE%C0%AF', '%E0%80%AF', '%FF%FE%FD', '%F4%90%80%80', '%00', '%0d%0aSet-Cookie:%20x=1', '%2e%2e', '%2e%2e%2f%2e%2e%2f',
  '%252e%252e%252f', '..%5c..%5c', '..', '.', '%', '%zz', '%u2215', '%E2%80%AE', '%EF%BB%BF', '%F0%9F%98%80', 'a;b=c', 'a%3Bb', '~', '%7e', "'", '%22',
];

const MALFORMED_JSON = [
  '', ' ', '{', '}', '[', '{"artist":', '{"artist":"x",}', "{'artist':'x'}", '{artist:"x"}', 'NaN', 'Infinity', '-', '[1,2', '{"a":1}{"b":2}',
  '\uFEFF{"artist":"x"}', '{"artist":"x"}garbage', '{"artist":"\\x41"}', '{"artist":"\\uD800"}', '{"artist":"\\u00"}', '{"artist":"a\u0000b"}',
  '{"artist":"x"', 'null', 'true', '0', '"string"', '[]', '{}', '[{}]', '[null]', '{"":""}', '{"artist":1e999}', '{"artist":-}', '{"a":[}',
  '{"__proto__":{"polluted":true},"artist":"x"}', '{"constructor":{"prototype":{"polluted":true}},"artist":"x"}', '/* comment */ {"artist":"x"}',
  '{"artist":"x","artist":"y"}', '\u0000', '\x80\x81\xfe\xff',
];

const CONTENT_TYPES = [
  '', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'APPLICATION/JSON',
  'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/json; charset=nope', 'application/json;;;', 'application/vnd.api+json',
  'application/json, text/plain', 'application/merge-patch+json', 'application/jsonx', '*/*', 'application/json; boundary=--',
];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'TRACE'];

/** Values of the wrong JSON type (or out of range) for a property with `schema`. */
function wrongValues(schema: JsonRecord, strings: readonly string[], random: () => number): unknown[] {
  const type = alternatives(schema)[0]?.type ?? schema.type;
  const big = 'A'.repeat(between(random, 501, 70_000));
  const common: unknown[] = [null, true, [], {}, [[[[]]]], { $gt: '' }, -1, 0.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, big, '', pick(random, strings)];
  if (type === 'string') return [...common.filter((v) => typeof v !== 'string'), 123, big, '', 'x'.repeat(2001)];
  if (type === 'integer' || type === 'number') return [...common.filter((v) => typeof v !== 'number'), 1.5, -1, 1e400, -0, '1', '0x10', 1e10, 10_001];
  if (type === 'array') return [...common.filter((v) => !Array.isArray(v)), Array.from({ length: 10_001 }, () => 'id'), [null], [{}], [1, 2], ['']];
  if (type === 'boolean') return [...common.filter((v) => typeof v !== 'boolean'), 'true', 1, 0];
  return common;
}

/** One name from `[name, weight]` pairs, in proportion to the weights. */
function weighted(random: () => number, choices: readonly [string, number][]): string {
  const total = choices.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = random() * total;
  for (const [name, weight] of choices) {
    roll -= weight;
    if (roll < 0 && weight > 0) return name;
  }
  return choices.find(([, weight]) => weight > 0)?.[0] ?? 'valid';
}

function deepNesting(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Percent-encodes a string for a path segment or query value; lone surrogates become U+FFFD (as a browser would). */
function encode(text: string): string {
  return [...new TextEncoder().encode(text)].map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

/**
 * An endless stream of hostile requests against `routes`, drawn at random (seeded) from these families:
 * hostile path ids, wrong or hostile query values, malformed JSON, wrong types, oversized and deeply nested
 * bodies, wrong content types and encodings, hostile headers, wrong methods, and valid requests carrying
 * hostile names (which the service must store, list and hand to the blackhole safely).
 */
export function* hostileRequests(routes: readonly RouteInfo[], random: () => number, ctx: CorpusContext): Generator<HostileRequest> {
  const strings = hostileStrings(ctx.escapeToken);
  const text = () => (random() < 0.7 ? pick(random, strings) : `Album ${between(random, 0, 1e9)} ${pick(random, strings)}`);
  const oversized = `[${JSON.stringify({ artist: 'x'.repeat(400) })}${`,${JSON.stringify({ artist: 'x'.repeat(400) })}`.repeat(2700)}]`; // > 1 MiB
  const gzipBomb = gzipSync(Buffer.from(JSON.stringify({ artist: 'x', album: ' '.repeat(20 * 1024 * 1024) })));
  for (;;) {
    const route = pick(random, routes);
    const headers: Record<string, string> = { accept: 'application/json' };
    let kind: string;
    const pathValues = route.pathParams.map(() => {
      const known = ctx.knownIds();
      return known.length > 0 && random() < 0.5 ? encode(pick(random, known)) : encode(`id_${between(random, 0, 1e6)}`);
    });
    const query: string[] = [];
    for (const param of route.queryParams) {
      if (random() < 0.3) query.push(`${param.name}=${encode(String(sampleValid(param.schema, random, text)))}`);
    }
    let body: unknown = route.body ? sampleValid(route.body, random, text) : undefined;
    let raw: string | Buffer | undefined;
    let method = route.method;

    const families: [string, number][] = [
      ['path: hostile id', route.pathParams.length > 0 ? 14 : 0],
      ['query: wrong type or hostile value', route.queryParams.length > 0 ? 12 : 0],
      ['query: unknown, bracketed or prototype keys', 4],
      ['body: malformed JSON', route.body ? 12 : 0],
      ['body: wrong type, out of range or unknown property', isRecord(body) ? 15 : 0],
      ['body: deep nesting', route.body ? 3 : 0],
      ['body: over 1 MiB', 0.4],
      ['body: gzip bomb or bad encoding', route.body ? 1 : 0],
      ['body: wrong content type', route.body ? 5 : 0],
      ['headers: hostile values', 8],
      ['headers: oversized (≈ 20 KiB)', 1.5],
      ["method: not the route's", 5],
      ['body: valid with hostile names', route.body ? 12 : 0],
      ['valid', 6],
    ];
    kind = weighted(random, families);
    if (kind === 'path: hostile id') {
      const index = between(random, 0, pathValues.length - 1);
      pathValues[index] = random() < 0.6 ? encode(pick(random, strings)) : pick(random, RAW_SEGMENTS);
    } else if (kind === 'query: wrong type or hostile value') {
      const param = pick(random, route.queryParams);
      const value = pick(random, ['abc', '-1', '1.5', '1e309', 'NaN', 'Infinity', '0x10', '9'.repeat(400), '', ' ', 'true', '[]', '{}', ...strings]);
      query.push(`${param.name}=${random() < 0.8 ? encode(value) : pick(random, RAW_SEGMENTS)}`);
      if (random() < 0.3) query.push(`${param.name}=${encode(value)}`); // repeated: arrives as an array
    } else if (kind === 'query: unknown, bracketed or prototype keys') {
      query.push(pick(random, ['__proto__[polluted]=1', 'constructor[prototype][polluted]=1', 'limit[]=1', 'limit[$gt]=0', 'a=1&a=2&a=3', `x=${'y'.repeat(6000)}`, '&&&', '=', '%=%', 'q=%ZZ']));
    } else if (kind === 'body: malformed JSON') {
      raw = pick(random, MALFORMED_JSON);
    } else if (kind === 'body: wrong type, out of range or unknown property' && isRecord(body) && route.body) {
      const keys = Object.keys(isRecord(route.body.properties) ? route.body.properties : body);
      const key = keys.length > 0 && random() < 0.85 ? pick(random, keys) : pick(random, ['unknown', '__proto__', 'constructor', '', 'artist ']);
      const property = isRecord(route.body.properties) && isRecord(route.body.properties[key]) ? route.body.properties[key] : {};
      if (random() < 0.15) Reflect.deleteProperty(body, key);
      else body[key] = pick(random, wrongValues(property, strings, random));
    } else if (kind === 'body: deep nesting') {
      raw = deepNesting(pick(random, [64, 1000, 10_000, 100_000]), random() < 0.5 ? 'array' : 'object');
    } else if (kind === 'body: over 1 MiB') {
      raw = oversized;
      method = route.body ? method : 'POST';
    } else if (kind === 'body: gzip bomb or bad encoding') {
      headers['content-encoding'] = pick(random, ['gzip', 'gzip', 'deflate', 'br', 'compress', 'identity, gzip', 'x-unknown']);
      raw = headers['content-encoding'] === 'gzip' && random() < 0.7 ? gzipBomb : Buffer.from('\x1f\x8b\x08\x00garbage-not-gzip');
    } else if (kind === 'body: wrong content type') {
      headers['content-type'] = pick(random, CONTENT_TYPES);
    } else if (kind === 'headers: hostile values') {
      const header = pick(random, ['x-request-id', 'authorization', 'x-api-key', 'cookie', 'remote-user', 'remote-groups', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'accept', 'origin', 'referer', 'accept-language', 'if-none-match', 'range']);
      headers[header] = pick(random, [
        'x'.repeat(between(random, 1, 12_000)), 'Bearer ' + 'k'.repeat(5000), 'Basic !!!notbase64', 'Basic ' + Buffer.from([0xff, 0xfe, 0x3a, 0x00]).toString('base64'),
        'crateflow_session=' + 'A'.repeat(4000), 'crateflow_session=../../etc/passwd; crateflow_session=2', '127.0.0.1, 10.0.0.1, ::1, garbage',
        'text/html', '*/*;q=abc', 'bytes=0-1,2-3,4-5', '../../admin', 'null', '', ' ', '\t', encode(pick(random, strings)),
      ]);
    } else if (kind === 'headers: oversized (≈ 20 KiB)') {
      headers['x-padding'] = 'p'.repeat(20_000);
    } else if (kind === "method: not the route's") {
      method = pick(random, METHODS.filter((m) => m !== route.method));
    }

    if (route.template === '/api/v1/webhooks/test' && isRecord(body) && body.dry_run !== true) {
      // A live test sends a real request: only ever to the loopback receiver, whatever else the body says.
      body.url = ctx.liveWebhookUrl;
      Reflect.deleteProperty(body, 'name');
      Reflect.deleteProperty(body, 'timeout_ms');
    }
    const path = route.template.replace(/\{[^}]+\}/g, () => pathValues.shift() ?? 'x') + (query.length > 0 ? `?${query.join('&')}` : '');
    const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    if (payload !== undefined && method !== 'GET' && method !== 'HEAD') {
      headers['content-type'] ??= 'application/json';
      if (headers['content-type'] === '') Reflect.deleteProperty(headers, 'content-type');
      yield { kind, route: route.label, method, path, headers, body: payload };
    } else {
      yield { kind, route: route.label, method, path, headers };
    }
  }
}
