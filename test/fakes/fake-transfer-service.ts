import { listenOnLoopback } from './listen-on-loopback.js';
import { replyJson } from './reply.js';

export interface FakeTransferService {
  /** `http://127.0.0.1:<port>`; `POST /transfers` starts one, `GET /transfers/:id` reports `{ percent, path? }`. */
  readonly url: string;
  /** The API key requests must carry as `x-api-key`. */
  readonly apiKey: string;
  /** From now on every request is answered 401. */
  rejectKeys(): void;
  /** Moves every transfer 50 percent further. */
  step(): void;
  close(): Promise<void>;
}

/** A minimal download service for contract-kit tests: transfers that complete in two steps, and a key check. */
export async function startFakeTransferService(): Promise<FakeTransferService> {
  const apiKey = 'test-key-0123456789';
  const transfers = new Map<string, number>();
  let rejecting = false;
  const listener = await listenOnLoopback(async (req, res) => {
    if (rejecting || req.headers['x-api-key'] !== apiKey) return replyJson(res, 401, { error: 'bad key' });
    if (req.method === 'POST' && req.url === '/transfers') {
      const id = `t${transfers.size + 1}`;
      transfers.set(id, 0);
      return replyJson(res, 201, { id });
    }
    const id = /^\/transfers\/([a-z0-9]+)$/.exec(req.url ?? '')?.[1];
    const percent = id === undefined ? undefined : transfers.get(id);
    if (id === undefined || percent === undefined) return replyJson(res, 404, { error: 'no such transfer' });
    return replyJson(res, 200, percent >= 100 ? { percent, path: `/downloads/${id}` } : { percent });
  });
  return {
    url: listener.origin,
    apiKey,
    rejectKeys: () => {
      rejecting = true;
    },
    step: () => {
      for (const [id, percent] of transfers) transfers.set(id, Math.min(100, percent + 50));
    },
    close: () => listener.close(),
  };
}
