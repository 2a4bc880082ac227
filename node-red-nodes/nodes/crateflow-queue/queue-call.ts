/** The operations of the `crateflow-queue` node. */
export const OPERATIONS = ['list', 'add', 'approve', 'reject'] as const;
export type Operation = (typeof OPERATIONS)[number];

export function isOperation(value: unknown): value is Operation {
  return typeof value === 'string' && OPERATIONS.some((operation) => operation === value);
}

/** One request to the Crateflow API, derived from an operation and a message payload. */
export interface QueueCall {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number>;
  body?: unknown;
}

/** Bad input in a message; the node reports it with `done(err)` without calling the API. */
export class QueueInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueueInputError';
  }
}

const LIST_PARAMETERS = ['limit', 'offset', 'sort', 'order', 'source', 'q'] as const;

/**
 * Maps an operation and `msg.payload` to an API call (CONTRACT §2 Queue).
 * - `list`: GET /queue/pending; `limit`, `offset`, `sort`, `order`, `source`, `q` from the payload override the node's limit.
 * - `add`: POST /queue with the payload (one candidate or an array).
 * - `approve`/`reject`: a single `id` (or a bare string, or a `queue_added` webhook payload's `data.id`) uses
 *   POST /queue/{id}/approve|reject; `ids`, `mbid`, `mbids` (and `all: true` for approve) use the bulk route.
 */
export function buildQueueCall(operation: Operation, payload: unknown, defaults: { limit?: number } = {}): QueueCall {
  switch (operation) {
    case 'list':
      return { method: 'GET', path: '/api/v1/queue/pending', query: listQuery(payload, defaults.limit) };
    case 'add':
      if (typeof payload !== 'object' || payload === null) {
        throw new QueueInputError('add needs msg.payload to be a candidate object (with artist) or an array of them');
      }
      return { method: 'POST', path: '/api/v1/queue', body: payload };
    case 'approve':
    case 'reject':
      return decisionCall(operation, payload);
  }
}

function listQuery(payload: unknown, limit: number | undefined): Record<string, string | number> {
  const query: Record<string, string | number> = {};
  if (limit !== undefined && limit > 0) query.limit = limit;
  if (typeof payload !== 'object' || payload === null) return query;
  for (const key of LIST_PARAMETERS) {
    const value: unknown = Reflect.get(payload, key);
    if (typeof value === 'string' || typeof value === 'number') query[key] = value;
  }
  return query;
}

function decisionCall(operation: 'approve' | 'reject', payload: unknown): QueueCall {
  const single = singleId(payload);
  if (single !== undefined) {
    return { method: 'POST', path: `/api/v1/queue/${encodeURIComponent(single)}/${operation}` };
  }
  const body: { ids?: string[]; mbids?: string[]; all?: boolean } = {};
  if (typeof payload === 'object' && payload !== null) {
    const ids = stringList(payload, 'ids');
    const mbids = [...stringList(payload, 'mbids'), ...stringList(payload, 'mbid')];
    if (ids.length > 0) body.ids = ids;
    if (mbids.length > 0) body.mbids = mbids;
    if (operation === 'approve' && Reflect.get(payload, 'all') === true) body.all = true;
  }
  if (!body.ids && !body.mbids && !body.all) {
    throw new QueueInputError(`${operation} needs msg.payload.id, ids, mbid or mbids${operation === 'approve' ? ' (or all: true)' : ''}`);
  }
  return { method: 'POST', path: `/api/v1/queue/${operation}`, body };
}

function singleId(payload: unknown): string | undefined {
  if (typeof payload === 'string') return payload.trim() || undefined;
  if (typeof payload !== 'object' || payload === null) return undefined;
  const id: unknown = Reflect.get(payload, 'id');
  if (typeof id === 'string' && id !== '') return id;
  // The payload of a queue_added webhook: {event, timestamp, data: {id, ...}}.
  const data: unknown = Reflect.get(payload, 'data');
  if (typeof data === 'object' && data !== null && !('ids' in payload) && !('mbids' in payload)) {
    const dataId: unknown = Reflect.get(data, 'id');
    if (typeof dataId === 'string' && dataId !== '') return dataId;
  }
  return undefined;
}

function stringList(payload: object, key: string): string[] {
  const value: unknown = Reflect.get(payload, key);
  if (typeof value === 'string' && value !== '') return [value];
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is string => typeof item === 'string' && item !== '');
}
