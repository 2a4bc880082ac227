import { systemClock, type Clock } from '@crateflow/sdk';
import { isUtf8 } from 'node:buffer';
import { randomInt } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonObject } from './is-json-object.js';
import { listenOnLoopback } from './listen-on-loopback.js';
import { ArrivalWaiters } from './arrival-waiters.js';
import { recordRequest, type RecordedRequest } from './recorded-request.js';
import { replyText } from './reply.js';

/**
 * A real HTTP fake of an ntfy server's publish API (github.com/binwiederhier/ntfy), quirks on. "Source" below is
 * the server at commit 81a486ad (2025-07-13); the `copy` action and the message-size boundary come from newer
 * upstream tests (2026), named where used. Anything a default server does not do (delayed delivery, templates,
 * UnifiedPush, poll requests) throws, so the listener answers 500 and the test fails loudly rather than passing
 * against behaviour the fake made up.
 */
export interface FakeNtfyOptions {
  /**
   * Turns the server into an `auth-file` + `auth-default-access: deny-all` one with a single user who may write every
   * topic and owns this access token. Must look like ntfy's tokens: `tk_` and 29 lower-case letters/digits
   * (user/manager.go, tokenPrefix/tokenLength and RandomLowerStringPrefix). Without it the server has no user
   * manager and ignores Authorization entirely, as ntfy does (server.go, maybeAuthenticate).
   */
  readonly token?: string;
  /** `message-size-limit` in bytes (config.go DefaultMessageSizeLimit: 4096). */
  readonly messageSizeLimit?: number;
  /**
   * `attachment-cache-dir` and `base-url` set, as on ntfy.sh: a body over the limit becomes an attachment. Off by
   * default like a fresh self-hosted server, which refuses it with 40014 (server.go, handleBodyAsAttachment).
   */
  readonly attachments?: boolean;
  /** `visitor-request-limit-burst` (config.go: 60, refilled one per 5 s). Every loopback client is one visitor. */
  readonly visitorRequestLimitBurst?: number;
  readonly clock?: Clock;
}

/** Fields every ntfy action carries on the wire (types.go, `action`): `clear` is always there, the rest when set. */
interface NtfyActionFields {
  /** 10 random characters the server assigns (actions.go, actionIDLength). */
  readonly id: string;
  readonly label: string;
  readonly clear: boolean;
  readonly url?: string;
  /** Upper-cased by the server; absent means the app sends POST. */
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly intent?: string;
  readonly extras?: Readonly<Record<string, string>>;
  readonly value?: string;
}

export type NtfyAction =
  | (NtfyActionFields & { readonly action: 'view'; readonly url: string })
  | (NtfyActionFields & { readonly action: 'http'; readonly url: string })
  | (NtfyActionFields & { readonly action: 'broadcast' })
  | (NtfyActionFields & { readonly action: 'copy'; readonly value: string });

export type NtfyHttpAction = Extract<NtfyAction, { action: 'http' }>;

export interface NtfyAttachment {
  readonly name: string;
  readonly type?: string;
  readonly size?: number;
  readonly expires?: number;
  readonly url: string;
}

/** One accepted publish: the message JSON ntfy answered (types.go, `message`) plus what the fake derived from it. */
export interface NtfyMessage {
  readonly id: string;
  readonly time: number;
  /** Absent when the publisher sent `cache: no`. */
  readonly expires?: number;
  readonly event: 'message';
  readonly topic: string;
  readonly title?: string;
  /** Never empty: ntfy writes "triggered" for an empty message. */
  readonly message: string;
  /** Absent when not sent: the server does not default it to 3. */
  readonly priority?: number;
  readonly tags?: readonly string[];
  readonly click?: string;
  readonly icon?: string;
  readonly actions: readonly NtfyAction[];
  readonly attachment?: NtfyAttachment;
  /** The `attach` URL the publisher gave, if any. */
  readonly attach?: string;
  readonly markdown: boolean;
  readonly raw: RecordedRequest;
}

export interface FakeNtfy {
  /** The server root, no trailing slash: JSON publishes go to `${url}/`. */
  readonly url: string;
  /** Accepted publishes, in order. */
  readonly messages: NtfyMessage[];
  /** Every request, refused ones included. */
  readonly received: readonly RecordedRequest[];
  /** How many requests got an ntfy error answer (4xx/5xx JSON) so far. */
  readonly rejected: number;
  /** Resolves with the first `count` messages once that many were accepted; rejects after `timeoutMs` (default 60 s). */
  waitFor(count: number, timeoutMs?: number): Promise<NtfyMessage[]>;
  /** The next `count` publishes that reach ntfy's request limiter get its 429, as if the visitor's bucket were empty. */
  rateLimitNext(count: number): void;
  close(): Promise<void>;
}

/** The error JSON ntfy writes (errors.go, errHTTP): `link` is left out when empty. */
interface NtfyErrorBody {
  readonly code: number;
  readonly http: number;
  readonly error: string;
  readonly link?: string;
}

const DOCS = 'https://ntfy.sh/docs';
/** The ones a publish can meet, as errors.go defines them. */
const ERR = {
  priorityInvalid: { code: 40007, http: 400, error: 'invalid priority parameter', link: `${DOCS}/publish/#message-priority` },
  delayNoCache: { code: 40002, http: 400, error: 'cannot disable cache for delayed message' },
  emailDisabled: { code: 40001, http: 400, error: 'e-mail notifications are not enabled', link: `${DOCS}/config/#e-mail-notifications` },
  topicInvalid: { code: 40009, http: 400, error: 'invalid request: topic invalid' },
  topicDisallowed: { code: 40010, http: 400, error: 'invalid request: topic name is not allowed' },
  notUtf8: { code: 40011, http: 400, error: 'invalid request: message must be UTF-8 encoded' },
  attachUrlInvalid: { code: 40013, http: 400, error: 'invalid request: attachment URL is invalid', link: `${DOCS}/publish/#attachments` },
  attachmentsDisallowed: { code: 40014, http: 400, error: 'invalid request: attachments not allowed', link: `${DOCS}/config/#attachments` },
  actionsInvalid: { code: 40018, http: 400, error: 'invalid request: actions invalid', link: `${DOCS}/publish/#action-buttons` },
  iconUrlInvalid: { code: 40021, http: 400, error: 'invalid request: icon URL is invalid', link: `${DOCS}/publish/#icons` },
  jsonInvalid: { code: 40024, http: 400, error: 'invalid request: request body must be valid JSON' },
  callsDisabled: { code: 40032, http: 400, error: 'invalid request: calling is disabled', link: `${DOCS}/config/#phone-calls` },
  unauthorized: { code: 40101, http: 401, error: 'unauthorized', link: `${DOCS}/publish/#authentication` },
  forbidden: { code: 40301, http: 403, error: 'forbidden', link: `${DOCS}/publish/#authentication` },
  notFound: { code: 40401, http: 404, error: 'page not found' },
  attachmentTooLarge: { code: 41301, http: 413, error: 'attachment too large, or bandwidth limit reached', link: `${DOCS}/publish/#limitations` },
  jsonTooLarge: { code: 41303, http: 413, error: 'JSON body too large' },
  tooManyRequests: { code: 42901, http: 429, error: 'limit reached: too many requests', link: `${DOCS}/publish/#limitations` },
  tooManyAuthFailures: { code: 42909, http: 429, error: 'limit reached: too many auth failures', link: `${DOCS}/publish/#limitations` },
  internal: { code: 50001, http: 500, error: 'internal server error' },
} satisfies Record<string, NtfyErrorBody>;

/** A publish ntfy refuses; the handler turns it into the error reply. */
class Refusal extends Error {
  constructor(readonly body: NtfyErrorBody) {
    super(body.error);
  }
}

/** errors.go, errHTTP.Wrap: the detail goes after "; ". */
const refuse = (body: NtfyErrorBody, detail?: string): Refusal =>
  new Refusal(detail === undefined ? body : { ...body, error: `${body.error}; ${detail}` });

// server.go, package vars: the JSON topic must match topicRegex; a path that does not match is no route at all.
const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
const TOPIC_PATH = /^\/([-_A-Za-z0-9]{1,64})$/;
const PUBLISH_GET_PATH = /^\/([-_A-Za-z0-9]{1,64})\/(?:publish|send|trigger)$/;
/** config.go, DefaultDisallowedTopics (checked in server.go topicsFromIDs, after the regex). */
const DISALLOWED_TOPICS = new Set(['docs', 'static', 'file', 'app', 'metrics', 'account', 'settings', 'signup', 'login', 'v1']);
const URL_PREFIX = /^https?:\/\//; // server.go urlRegex, for attach and icon only: click and action URLs are not checked
const CACHE_SECONDS = 12 * 3600; // config.go DefaultCacheDuration
const ATTACHMENT_EXPIRY_SECONDS = 3 * 3600; // config.go DefaultAttachmentExpiryDuration
const ATTACHMENT_FILE_SIZE_LIMIT = 15 * 1024 * 1024; // config.go DefaultAttachmentFileSizeLimit
const ACTIONS_MAX = 3; // actions.go actionsMax
/** actions.go actionsAll plus `copy` (upstream action_test.go after PR #1600, 2026; not in the 2025 snapshot). */
const ACTION_TYPES = ['view', 'broadcast', 'http', 'copy'] as const;
const ACTIONS_WITH_URL = ['view', 'http'];
const TOKEN_SHAPE = /^tk_[a-z0-9]{29}$/;

export async function startFakeNtfy(options: FakeNtfyOptions = {}): Promise<FakeNtfy> {
  const { token, attachments = false } = options;
  if (token !== undefined && !TOKEN_SHAPE.test(token)) throw new Error(`ntfy tokens are tk_ + 29 lower-case letters/digits, got ${token}`);
  const clock = options.clock ?? systemClock();
  const limit = options.messageSizeLimit ?? 4096;
  // visitor.go resetLimitersNoLock: golang.org/x/time/rate buckets that start full.
  const requestBucket = new TokenBucket(clock, options.visitorRequestLimitBurst ?? 60, 5_000);
  const authFailureBucket = new TokenBucket(clock, 30, 60_000); // config.go DefaultVisitorAuthFailureLimit*
  const messages: NtfyMessage[] = [];
  const received: RecordedRequest[] = [];
  const waiters = new ArrivalWaiters<NtfyMessage[]>();
  let forcedRateLimits = 0;
  let rejected = 0;
  let origin = '';

  /** server.go maybeAuthenticate: runs before routing, so a bad token is 401 whatever the request is. */
  const authenticate = (request: RecordedRequest): boolean => {
    if (token === undefined) return false;
    // server.go readAuthHeader: ?authorization= / ?auth= holds the header base64url-encoded without padding; one
    // that does not decode is a plain Go error, which handleError turns into a 500.
    let header = (request.headers.authorization ?? '').trim();
    const fromQuery = queryParam(request.query, ['authorization', 'auth']);
    if (fromQuery !== '') {
      if (!/^[A-Za-z0-9_-]*$/.test(fromQuery) || fromQuery.length % 4 === 1) throw new Refusal(ERR.internal);
      header = Buffer.from(fromQuery, 'base64url').toString('utf8').trim();
    }
    // server.go supportedAuthHeader: anything but Basic/Bearer (an empty header too) is an anonymous visitor.
    if (!/^(?:basic|bearer) /i.test(header)) return false;
    // visitor.go AuthAllowed/AuthFailed: only failures take a token. Go wants *more* than one token left, which with
    // real time passing lets exactly `burst` failures through (server_test.go TestServer_Auth_Fail_Rate_Limiting);
    // `< 1` gives that count without depending on how much time passed.
    if (authFailureBucket.available() < 1) throw new Refusal(ERR.tooManyAuthFailures);
    if (credentialsMatch(header, token)) return true;
    authFailureBucket.take();
    throw new Refusal(ERR.unauthorized);
  };

  const publish = (request: RecordedRequest): NtfyMessage => {
    const user = authenticate(request);
    const params = new Params(request);
    let topic: string;
    let body = request.body;
    const isPutOrPost = request.method === 'PUT' || request.method === 'POST';
    const pathTopic = TOPIC_PATH.exec(request.path)?.[1];
    const getTopic = PUBLISH_GET_PATH.exec(request.path)?.[1];
    // server.go handleInternal: PUT/POST "/" is always JSON (transformBodyJSON); nothing looks at the first byte.
    if (isPutOrPost && request.path === '/') {
      ({ topic, body } = fromJsonBody(request.body, params, limit));
    } else if (isPutOrPost && pathTopic !== undefined) {
      topic = pathTopic;
    } else if (request.method === 'GET' && getTopic !== undefined) {
      topic = getTopic; // GET /<topic>/publish|send|trigger, the webhook form: no body
      body = Buffer.alloc(0);
    } else {
      throw new Refusal(ERR.notFound);
    }
    // server_middleware.go limitRequestsWithTopic: topic lookup, then the visitor's request bucket, then
    // authorizeTopicWrite. So a refused JSON body costs nothing and an anonymous 403 still spends a token.
    if (DISALLOWED_TOPICS.has(topic)) throw new Refusal(ERR.topicDisallowed);
    if (forcedRateLimits > 0) {
      forcedRateLimits--;
      throw new Refusal(ERR.tooManyRequests);
    }
    if (!requestBucket.take()) throw new Refusal(ERR.tooManyRequests);
    if (token !== undefined && !user) throw new Refusal(ERR.forbidden);
    return buildMessage(request, params, topic, body, { limit, attachments, origin, now: Math.floor(clock.now() / 1000) });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const request = await recordRequest(req);
    received.push(request);
    let message: NtfyMessage;
    try {
      message = publish(request);
    } catch (error: unknown) {
      if (!(error instanceof Refusal)) throw error;
      rejected++;
      // server.go handleError: no charset, CORS open, a trailing newline, and no Retry-After on a 429.
      return replyText(res, error.body.http, goJson(error.body), 'application/json', { 'access-control-allow-origin': '*' });
    }
    messages.push(message);
    waiters.settle();
    // server.go handlePublish → writeJSON.
    replyText(res, 200, goJson(toWire(message)), 'application/json', { 'access-control-allow-origin': '*' });
  };

  const listener = await listenOnLoopback(handle);
  origin = listener.origin;
  return {
    url: listener.origin,
    messages,
    received,
    get rejected() {
      return rejected;
    },
    waitFor(count, timeoutMs = 60_000) {
      return waiters.wait(() => (messages.length >= count ? messages.slice(0, count) : undefined), timeoutMs, () => `${count} ntfy message(s), got ${messages.length}`);
    },
    rateLimitNext(count) {
      forcedRateLimits = count;
    },
    close() {
      waiters.closeAll(`fake ntfy closed after ${messages.length} message(s)`);
      return listener.close();
    },
  };
}

/** server.go authenticate/authenticateBasicAuth and user/manager.go AuthenticateToken. */
function credentialsMatch(header: string, token: string): boolean {
  // The Bearer test is case-sensitive although supportedAuthHeader's is not: "bearer tk_…" falls through to the
  // Basic parser, which fails, so it is a 401.
  if (header.startsWith('Bearer')) return header.slice('Bearer'.length).trim() === token;
  const encoded = header.slice('Basic '.length);
  if (!/^basic /i.test(header) || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(encoded)) return false;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // An empty user name means "the password is a token" (docs/publish.md, Access tokens). The fake has no
  // password users, so any other user name fails like a wrong password.
  return colon === 0 && decoded.slice(1) === token;
}

/** golang.org/x/time/rate semantics: starts full, refills continuously, a refused take() costs nothing. */
class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly clock: Clock,
    private readonly burst: number,
    private readonly msPerToken: number,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  available(): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + (now - this.last) / this.msPerToken);
    this.last = now;
    return this.tokens;
  }

  take(): boolean {
    if (this.available() < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * The request's parameters as ntfy reads them (util.go readParam): headers first, then lower-case query names.
 * Header values are trimmed and RFC 2047-decoded; transformBodyJSON *sets* headers, so JSON fields win over headers
 * the client sent, while headers it did not set (and query parameters) still count.
 */
class Params {
  private readonly headers = new Map<string, string>();

  constructor(private readonly request: RecordedRequest) {
    for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
      const name = (request.rawHeaders[i] ?? '').toLowerCase();
      // Go's Header.Get gives the first of repeated headers; Node hands header bytes over as latin1.
      if (!this.headers.has(name)) this.headers.set(name, Buffer.from(request.rawHeaders[i + 1] ?? '', 'latin1').toString('utf8'));
    }
  }

  set(name: string, value: string): void {
    this.headers.set(name, value);
  }

  read(...names: string[]): string {
    for (const name of names) {
      const value = decodeMimeWords(this.headers.get(name) ?? '');
      // util.go maybeIgnoreSpecialHeader: the RFC 9218 "Priority: u=3, i" some proxies add is not a priority.
      if (name === 'priority' && /^u=\d,\s*(?:i|\d)$|^u=\d$/.test(value.trim())) continue;
      if (value.trim() !== '') return value.trim();
    }
    return queryParam(this.request.query, names);
  }

  /** util.go readBoolParam/toBool: only 1/yes/true are true, any other non-empty value is false. */
  readBool(fallback: boolean, ...names: string[]): boolean {
    const value = this.read(...names).toLowerCase();
    return value === '' ? fallback : ['1', 'yes', 'true'].includes(value);
  }
}

/** util.go readQueryParam: names are matched lower-case, values trimmed. */
function queryParam(query: URLSearchParams, names: readonly string[]): string {
  for (const name of names) {
    const value = query.get(name.toLowerCase())?.trim();
    if (value) return value;
  }
  return '';
}

/**
 * util.go maybeDecodeHeader, Go's mime.WordDecoder: `=?utf-8?B?…?=` words are decoded (so a JSON title that looks
 * like one is decoded too); an unknown charset leaves the whole value as it was.
 */
function decodeMimeWords(value: string): string {
  const word = /=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=/g;
  let unknownCharset = false;
  const decoded = value
    .replace(/(=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=)\s+(?==\?)/g, '$1')
    .replace(word, (whole, charset: string, encoding: string, text: string) => {
      const name = charset.toLowerCase();
      if (!['utf-8', 'us-ascii', 'iso-8859-1'].includes(name)) {
        unknownCharset = true;
        return whole;
      }
      const bytes = encoding.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64')
        : Buffer.from(text.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_hex, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
      return bytes.toString(name === 'iso-8859-1' ? 'latin1' : 'utf8');
    });
  return unknownCharset ? value : decoded;
}

type FieldKind = 'string' | 'int' | 'bool' | 'strings' | 'map' | 'actions';
/** types.go publishMessage: everything a JSON publish may carry. */
const PUBLISH_FIELDS: Record<string, FieldKind> = {
  topic: 'string', title: 'string', message: 'string', priority: 'int', tags: 'strings', click: 'string', icon: 'string',
  actions: 'actions', attach: 'string', markdown: 'bool', filename: 'string', email: 'string', call: 'string',
  cache: 'string', firebase: 'string', delay: 'string',
};
/** types.go action (+ `value` for copy, 2026). */
const ACTION_FIELDS: Record<string, FieldKind> = {
  id: 'string', action: 'string', label: 'string', clear: 'bool', url: 'string', method: 'string', headers: 'map',
  body: 'string', intent: 'string', extras: 'map', value: 'string',
};

class GoTypeError extends Error {}

/**
 * encoding/json into a Go struct: unknown keys are ignored, names match case-insensitively (an exact match first),
 * a later duplicate wins, null leaves a scalar alone and clears a slice or map, and any type mismatch fails.
 */
function goStruct(value: unknown, fields: Record<string, FieldKind>): Record<string, unknown> {
  if (value === null) return {};
  if (!isJsonObject(value)) throw new GoTypeError();
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const field = Object.hasOwn(fields, key) ? key : Object.keys(fields).find((name) => name.toLowerCase() === key.toLowerCase());
    const kind = field === undefined ? undefined : fields[field];
    if (field === undefined || kind === undefined) continue;
    if (member === null) {
      if (kind === 'strings' || kind === 'map' || kind === 'actions') delete out[field];
      continue;
    }
    if (kind === 'actions') {
      if (!Array.isArray(member)) throw new GoTypeError();
      out[field] = member.map((item: unknown) => goStruct(item, ACTION_FIELDS));
    } else if (!fitsKind(kind, member)) {
      throw new GoTypeError();
    } else {
      out[field] = member;
    }
  }
  return out;
}

function fitsKind(kind: Exclude<FieldKind, 'actions'>, value: unknown): boolean {
  switch (kind) {
    case 'string': return typeof value === 'string';
    // Go also refuses 4.0 and 4e0 for an int; JSON.parse cannot tell those from 4, so the fake lets them pass.
    case 'int': return typeof value === 'number' && Number.isInteger(value);
    case 'bool': return typeof value === 'boolean';
    case 'strings': return Array.isArray(value) && value.every((item: unknown) => item === null || typeof item === 'string');
    case 'map': return isJsonObject(value) && Object.values(value).every((item) => item === null || typeof item === 'string');
  }
}

const text = (fields: Record<string, unknown>, name: string): string => {
  const value = fields[name];
  return typeof value === 'string' ? value : '';
};
const stringMap = (fields: Record<string, unknown>, name: string): Record<string, string> | undefined => {
  const value = fields[name];
  if (!isJsonObject(value) || Object.keys(value).length === 0) return undefined; // omitempty
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, typeof item === 'string' ? item : '']));
};

/**
 * server.go transformBodyJSON: the body is read up to twice the message limit (a body that fills it is "too large":
 * util/peek.go sets LimitReached when the read fills the buffer), decoded as *one* JSON value (json.Decoder, so
 * whatever follows it is ignored), and turned into headers plus a plain-text body for the ordinary publish path.
 */
function fromJsonBody(raw: Buffer, params: Params, limit: number): { topic: string; body: Buffer } {
  if (raw.length >= 2 * limit) throw new Refusal(ERR.jsonTooLarge);
  let fields: Record<string, unknown>;
  try {
    fields = goStruct(firstJsonValue(raw.toString('utf8')), PUBLISH_FIELDS);
  } catch (error: unknown) {
    if (error instanceof GoTypeError || error instanceof SyntaxError) throw new Refusal(ERR.jsonInvalid);
    throw error;
  }
  const topic = text(fields, 'topic');
  if (!TOPIC.test(topic)) throw new Refusal(ERR.topicInvalid);
  const priority = fields['priority'];
  if (typeof priority === 'number' && priority !== 0) params.set('x-priority', String(priority));
  const tags = fields['tags'];
  // Joined with "," here and split on "," later: a tag with a comma in it becomes two tags.
  if (Array.isArray(tags) && tags.length > 0) params.set('x-tags', tags.map((tag: unknown) => (typeof tag === 'string' ? tag : '')).join(','));
  if (fields['markdown'] === true) params.set('x-markdown', 'yes');
  const actions = fields['actions'];
  if (Array.isArray(actions) && actions.length > 0) params.set('x-actions', JSON.stringify(actions));
  for (const name of ['title', 'attach', 'filename', 'click', 'icon', 'email', 'delay', 'call', 'cache', 'firebase']) {
    if (text(fields, name) !== '') params.set(`x-${name}`, text(fields, name));
  }
  return { topic, body: Buffer.from(text(fields, 'message') || 'triggered', 'utf8') };
}

/** The first JSON value of `source`, as json.Decoder.Decode reads it; only an object or null can fill the struct. */
function firstJsonValue(source: string): unknown {
  const start = source.search(/[^ \t\r\n]/);
  if (start >= 0 && /^null(?![A-Za-z0-9])/.test(source.slice(start))) return null;
  if (start < 0 || source[start] !== '{') throw new GoTypeError();
  let depth = 0;
  let inString = false;
  for (let i = start; i < source.length; i++) {
    const c = source[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '[') {
      depth++;
    } else if ((c === '}' || c === ']') && --depth === 0) {
      return JSON.parse(source.slice(start, i + 1)) as unknown;
    }
  }
  throw new GoTypeError(); // the object never ends: unexpected EOF
}

interface PublishContext {
  readonly limit: number;
  readonly attachments: boolean;
  readonly origin: string;
  readonly now: number;
}

/** server.go handlePublishInternal → parsePublishParams (its checks, in its order) → handlePublishBody. */
function buildMessage(raw: RecordedRequest, params: Params, topic: string, body: Buffer, context: PublishContext): NtfyMessage {
  const id = randomString(12); // types.go messageIDLength
  const cache = params.readBool(true, 'x-cache', 'cache');
  const title = params.read('x-title', 'title', 't');
  const click = params.read('x-click', 'click');
  const icon = params.read('x-icon', 'icon');
  const filename = params.read('x-filename', 'filename', 'file', 'f');
  const attach = params.read('x-attach', 'attach', 'a');
  if (attach !== '' && !URL_PREFIX.test(attach)) throw new Refusal(ERR.attachUrlInvalid);
  if (icon !== '' && !URL_PREFIX.test(icon)) throw new Refusal(ERR.iconUrlInvalid);
  // A default server has neither SMTP nor Twilio configured.
  if (params.read('x-email', 'x-e-mail', 'email', 'e-mail', 'mail', 'e') !== '') throw new Refusal(ERR.emailDisabled);
  if (params.read('x-call', 'call') !== '') throw new Refusal(ERR.callsDisabled);
  let message = params.read('x-message', 'message', 'm').replaceAll('\\n', '\n');
  const priority = parsePriority(params.read('x-priority', 'priority', 'prio', 'p'));
  // util.go readCommaSeparatedParam: empty pieces are dropped *before* trimming, so "a, ,b" keeps a "" tag.
  const tags = params.read('x-tags', 'tags', 'tag', 'ta').split(',').filter((tag) => tag !== '').map((tag) => tag.trim());
  if (params.read('x-delay', 'delay', 'x-at', 'at', 'x-in', 'in') !== '') {
    if (!cache) throw new Refusal(ERR.delayNoCache);
    throw new Error('fake ntfy: delayed delivery is not modelled');
  }
  const actionsParam = params.read('x-actions', 'actions', 'action');
  const actions = actionsParam === '' ? [] : parseActions(actionsParam);
  const markdown = params.readBool(false, 'x-markdown', 'markdown', 'md') || params.read('content-type', 'content_type').toLowerCase() === 'text/markdown';
  if (params.readBool(false, 'x-template', 'template', 'tpl')) throw new Error('fake ntfy: message templates are not modelled');
  if (params.readBool(false, 'x-unifiedpush', 'unifiedpush', 'up') || params.read('content-encoding') === 'aes128gcm') {
    throw new Error('fake ntfy: UnifiedPush publishing is not modelled');
  }
  if (params.read('x-poll-id', 'poll-id') !== '') throw new Error('fake ntfy: poll requests are not modelled');

  let attachment: NtfyAttachment | undefined;
  if (attach !== '') {
    // Case 3 of handlePublishBody: the body is the message, cut to the limit *in bytes*, so a cut through a
    // multi-byte character makes it invalid UTF-8 and the publish fails.
    const name = filename || attachmentNameFromUrl(attach);
    attachment = { name, url: attach };
    message = textMessage(body.subarray(0, context.limit), message) || `You received a file: ${name}`;
  } else if (filename === '' && body.length <= context.limit && isUtf8(body)) {
    // Case 6. A body of exactly the limit is text per upstream publish_boundary_test.go (2026); the 2025 snapshot's
    // Peek counted it as over the limit.
    message = textMessage(body, message);
  } else {
    // Cases 4 and 7 (handleBodyAsAttachment): the body is stored as a file, when the server keeps files at all.
    if (!context.attachments) throw new Refusal(ERR.attachmentsDisallowed);
    if (body.length > ATTACHMENT_FILE_SIZE_LIMIT) throw new Refusal(ERR.attachmentTooLarge);
    // ntfy sniffs the type with gabriel-vasile/mimetype; the fake knows only text and "anything else".
    const [type, ext] = isUtf8(body) ? ['text/plain; charset=utf-8', '.txt'] : ['application/octet-stream', '.bin'];
    const name = filename || `attachment${ext}`;
    attachment = { name, type, size: body.length, expires: context.now + ATTACHMENT_EXPIRY_SECONDS, url: `${context.origin}/file/${id}${ext}` };
    message ||= `You received a file: ${name}`;
  }
  return {
    id,
    time: context.now,
    ...(cache ? { expires: context.now + CACHE_SECONDS } : {}),
    event: 'message',
    topic,
    ...(title ? { title } : {}),
    message: message || 'triggered', // server.go emptyMessageBody
    ...(priority ? { priority } : {}),
    ...(tags.length > 0 ? { tags } : {}),
    ...(click ? { click } : {}),
    ...(icon ? { icon } : {}),
    actions,
    ...(attachment ? { attachment } : {}),
    ...(attach ? { attach } : {}),
    markdown,
    raw,
  };
}

/** server.go handleBodyAsTextMessage: must be UTF-8, is trimmed, and an empty body keeps the `message` param. */
function textMessage(body: Buffer, fallback: string): string {
  if (!isUtf8(body)) throw new Refusal(ERR.notUtf8);
  return body.length > 0 ? body.toString('utf8').trim() : fallback;
}

/** server.go parsePublishParams: path.Base of the URL's path (trailing slashes ignored), or "attachment". */
function attachmentNameFromUrl(url: string): string {
  try {
    const base = new URL(url).pathname.replace(/\/+$/, '').split('/').pop() ?? '';
    return base === '' || base === '.' ? 'attachment' : decodeURIComponent(base);
  } catch {
    return 'attachment';
  }
}

/** util.go ParsePriority: 1–5 or their names; empty is "not set". */
function parsePriority(value: string): number | undefined {
  const names: Record<string, number> = { '1': 1, min: 1, '2': 2, low: 2, '3': 3, default: 3, '4': 4, high: 4, '5': 5, max: 5, urgent: 5 };
  const key = value.trim().toLowerCase();
  if (key === '') return undefined;
  const priority = names[key];
  if (priority === undefined) throw new Refusal(ERR.priorityInvalid);
  return priority;
}

/**
 * actions.go parseActions: JSON when it starts with "[", else the simple format; then ids, lower-cased action,
 * upper-cased method, and the checks in this order. Every failure is 40018 with the reason after "; ".
 */
function parseActions(source: string): NtfyAction[] {
  const trimmed = source.trim();
  let parsed: Record<string, unknown>[];
  try {
    if (!trimmed.startsWith('[')) {
      parsed = parseSimpleActions(trimmed);
    } else {
      const list: unknown = JSON.parse(trimmed);
      if (!Array.isArray(list)) throw new GoTypeError();
      parsed = list.map((item: unknown) => goStruct(item, ACTION_FIELDS));
    }
  } catch (error: unknown) {
    // Go's own JSON error text follows "JSON error: "; the fake's wording differs after that prefix.
    if (error instanceof SyntaxError || error instanceof GoTypeError) throw refuse(ERR.actionsInvalid, `JSON error: ${error.message}`);
    if (error instanceof ActionSyntaxError) throw refuse(ERR.actionsInvalid, error.message);
    throw error;
  }
  if (parsed.length > ACTIONS_MAX) throw refuse(ERR.actionsInvalid, `only ${ACTIONS_MAX} actions allowed`);
  return parsed.map((fields) => {
    const type = text(fields, 'action').toLowerCase();
    const label = text(fields, 'label');
    const url = text(fields, 'url');
    const method = text(fields, 'method').toUpperCase();
    const body = text(fields, 'body');
    const value = text(fields, 'value');
    if (!isActionType(type)) {
      throw refuse(ERR.actionsInvalid, `parameter 'action' cannot be '${type}', valid values are 'view', 'broadcast', 'http' and 'copy'`);
    }
    if (label === '') throw refuse(ERR.actionsInvalid, "parameter 'label' is required");
    if (ACTIONS_WITH_URL.includes(type) && url === '') throw refuse(ERR.actionsInvalid, `parameter 'url' is required for action '${type}'`);
    if (type === 'http' && (method === 'GET' || method === 'HEAD') && body !== '') {
      throw refuse(ERR.actionsInvalid, `parameter 'body' cannot be set if method is ${method}`);
    }
    if (type === 'copy' && value === '') throw refuse(ERR.actionsInvalid, "parameter 'value' is required for action 'copy'");
    // The wire form keeps every non-empty field, whatever the type (types.go action, omitempty on all but clear).
    const optional = {
      ...(url ? { url } : {}), ...(method ? { method } : {}), ...(body ? { body } : {}), ...(value ? { value } : {}),
      ...(text(fields, 'intent') ? { intent: text(fields, 'intent') } : {}),
    };
    const headers = stringMap(fields, 'headers');
    const extras = stringMap(fields, 'extras');
    const base = { id: randomString(10), label, clear: fields['clear'] === true, ...optional, ...(headers ? { headers } : {}), ...(extras ? { extras } : {}) };
    switch (type) {
      case 'view': return { ...base, action: type, url };
      case 'http': return { ...base, action: type, url };
      case 'copy': return { ...base, action: type, value };
      case 'broadcast': return { ...base, action: type };
    }
  });
}

function isActionType(value: string): value is (typeof ACTION_TYPES)[number] {
  return (ACTION_TYPES as readonly string[]).includes(value);
}

class ActionSyntaxError extends Error {}

/**
 * actions.go parseActionsFromSimple: `action, label, url; …` with optional `key=` prefixes, quotes (" or ') that
 * allow , and ; inside, and `headers.X=` / `extras.X=` keys. Positions are string indices, where Go counts bytes.
 */
function parseSimpleActions(input: string): Record<string, unknown>[] {
  const actions: Record<string, unknown>[] = [];
  let pos = 0;
  const skipSpaces = (): void => {
    while (pos < input.length && ' \t\r\n'.includes(input[pos] ?? '')) pos++;
  };
  const isEnd = (c: string | undefined): boolean => c === undefined || c === ',' || c === ';';
  while (pos < input.length) {
    const action: Record<string, unknown> = {};
    const headers: Record<string, string> = {};
    const extras: Record<string, string> = {};
    for (let section = 0; ; section++) {
      skipSpaces();
      const keyMatch = /^([-.\w]+)\s*=\s*/.exec(input.slice(pos));
      let key = keyMatch?.[1] ?? '';
      pos += keyMatch?.[0].length ?? 0;
      let value = '';
      let last: boolean;
      const first = input[pos];
      if (isEnd(first)) {
        last = first !== ',';
        if (first !== undefined) pos++;
      } else if (first === '"' || first === "'") {
        const start = ++pos;
        while (!(input[pos] === first && input[pos - 1] !== '\\')) {
          if (pos >= input.length) throw new ActionSyntaxError(`unexpected end of input, quote started at position ${start}`);
          pos++;
        }
        value = input.slice(start, pos).replaceAll(`\\${first}`, first);
        pos++;
        skipSpaces();
        const after = input[pos];
        if (!isEnd(after)) throw new ActionSyntaxError(`unexpected character '${after ?? ''}' at position ${pos}`);
        last = after !== ',';
        if (after !== undefined) pos++;
      } else {
        const start = pos;
        while (!isEnd(input[pos])) pos++;
        value = input.slice(start, pos).trim();
        last = input[pos] !== ',';
        if (pos < input.length) pos++;
      }
      // populateAction: positions 0, 1, 2 are action, label, url (url only for view/http, compared before lower-casing;
      // the third position is the copy value since 2026, upstream action_test.go).
      const type = typeof action['action'] === 'string' ? action['action'] : '';
      if (key === '' && section === 0) key = 'action';
      else if (key === '' && section === 1) key = 'label';
      else if (key === '' && section === 2 && ACTIONS_WITH_URL.includes(type)) key = 'url';
      else if (key === '' && section === 2 && type === 'copy') key = 'value';
      if (key === '') throw new ActionSyntaxError(`term '${value}' unknown`);
      if (key.startsWith('headers.')) {
        headers[key.slice('headers.'.length)] = value;
      } else if (key.startsWith('extras.')) {
        extras[key.slice('extras.'.length)] = value;
      } else if (key.toLowerCase() === 'clear') {
        const flag = value.toLowerCase();
        if (!['true', 'yes', '1', 'false', 'no', '0'].includes(flag)) {
          throw new ActionSyntaxError(`parameter 'clear' cannot be '${value}', only boolean values are allowed (true/yes/1/false/no/0)`);
        }
        action['clear'] = ['true', 'yes', '1'].includes(flag);
      } else if (['action', 'label', 'url', 'method', 'body', 'intent', 'value'].includes(key.toLowerCase())) {
        action[key.toLowerCase()] = value;
      } else {
        throw new ActionSyntaxError(`key '${key}' unknown`);
      }
      skipSpaces();
      if (last) break;
    }
    actions.push({ ...action, headers, extras });
  }
  return actions;
}

/** util.go RandomString: letters and digits. */
function randomString(length: number): string {
  const charset = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from({ length }, () => charset[randomInt(charset.length)]).join('');
}

/** The message JSON in types.go's field order, empty fields left out (omitempty). */
function toWire(message: NtfyMessage): Record<string, unknown> {
  const { id, time, expires, event, topic, title, message: text, priority, tags, click, icon, actions, attachment, markdown } = message;
  return {
    id, time, expires, event, topic, title, message: text, priority, tags, click, icon,
    actions: actions.length > 0 ? actions : undefined,
    attachment,
    content_type: markdown ? 'text/markdown' : undefined,
  };
}

/** json.Encoder as ntfy uses it: HTML-safe escapes for < > & (and U+2028/9), then a newline. */
function goJson(value: unknown): string {
  const escaped = JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `${escaped}\n`;
}

/** ntfy-android 1.25.0 (app/build.gradle versionName), util/HttpUtil.kt USER_AGENT: "ntfy/<version> (<flavor>; Android <release>; SDK <int>)". */
export const NTFY_ANDROID_USER_AGENT = 'ntfy/1.25.0 (play; Android 14; SDK 34)';

/**
 * Does what the ntfy Android app does when the user taps an `http` action button (ntfy-android
 * msg/UserActionWorker.kt performHttpAction): `method`, default POST; `body`, default "" except on GET/HEAD where
 * there is none; the app's User-Agent, then the action's headers added after it; and *no* Content-Type unless the
 * action sets one (OkHttp's String.toRequestBody() without a media type). fetch() would add text/plain for a string
 * body, so the body goes as bytes. The app treats 2xx as success and anything else as "HTTP <code>" failed.
 */
export async function pressHttpAction(action: Pick<NtfyHttpAction, 'url' | 'method' | 'headers' | 'body'>): Promise<{ status: number; text: string }> {
  const method = action.method ?? 'POST';
  const bodyless = method === 'GET' || method === 'HEAD';
  const body = action.body ?? (bodyless ? undefined : '');
  // OkHttp refuses a body on GET/HEAD and the app marks the action failed; ntfy never lets such an action through.
  if (bodyless && body !== undefined) throw new Error(`method ${method} must not have a request body`);
  const headers = new Headers({ 'user-agent': NTFY_ANDROID_USER_AGENT });
  for (const [name, value] of Object.entries(action.headers ?? {})) headers.append(name, value);
  const response = await fetch(action.url, {
    method,
    headers,
    ...(body === undefined ? {} : { body: Buffer.from(body, 'utf8') }),
    signal: AbortSignal.timeout(60_000), // HttpUtil.kt defaultClientBuilder callTimeout 1 min
  });
  return { status: response.status, text: await response.text() };
}
