import { randomUUID } from 'node:crypto';
import type { FakeSlskdPeer } from './fake-slskd-catalogue.js';
import type { FakeSlskdTransfers } from './fake-slskd-transfers.js';
import { isJsonObject } from './is-json-object.js';

export type BatchResult = { readonly status: 200 | 201 | 207; readonly body: Record<string, unknown> } | { readonly status: 400 | 404 | 409; readonly message: string };

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * slskd 0.26's `POST /transfers/downloads/batches` (slskd's `src/slskd/Transfers/API/Controllers/TransfersController.cs`,
 * `EnqueueBatchAsync`; `API/DTO/EnqueueDownloadBatchRequest.cs`): validates like the real DTO (username, at least
 * one file, no repeated filenames, GUID ids, a relative non-traversing destination), answers 404 for an offline
 * peer and 409 for a batch id that exists, then enqueues the files with the batch's destination. The destination
 * is sanitised as `FileSafety.SanitizePath` does on a Linux host (segments split on `/` and `\`, joined with `/`).
 */
export class FakeSlskdBatches {
  private readonly batches = new Map<string, Record<string, unknown>>();

  constructor(private readonly transfers: FakeSlskdTransfers) {}

  create(peers: readonly FakeSlskdPeer[], body: unknown): BatchResult {
    if (!isJsonObject(body)) return { status: 400, message: 'A request body is required' };
    const username = body['username'];
    const files = body['files'];
    if (typeof username !== 'string' || username.trim() === '') return { status: 400, message: 'The Username field is required.' };
    if (!Array.isArray(files) || files.length === 0) return { status: 400, message: 'The field Files must be a string or array type with a minimum length of \'1\'.' };
    const names = files.map((f) => (isJsonObject(f) ? f['filename'] : undefined));
    if (new Set(names).size !== names.length) return { status: 400, message: 'Two or more files in the request are repeated' };
    const id = typeof body['id'] === 'string' && body['id'] !== '' ? body['id'].toLowerCase() : randomUUID();
    if (!GUID.test(id)) return { status: 400, message: 'One or more provided identifiers is not a valid GUID/UUID' };
    const options = isJsonObject(body['options']) ? body['options'] : {};
    const rawDestination = options['destination'];
    let destination: string | undefined;
    if (rawDestination !== undefined && rawDestination !== null) {
      if (typeof rawDestination !== 'string' || rawDestination.trim() === '') return { status: 400, message: 'Destination must not be empty' };
      const segments = rawDestination.split(/[\\/]/);
      if (/^([a-z]:|[\\/])/i.test(rawDestination)) return { status: 400, message: 'Destination must be a relative path' };
      if (segments.includes('..') || segments.includes('.')) return { status: 400, message: 'Destination must not contain path traversal segments' };
      // What the RelativePath/NonTraversingPath checks let through is then sanitised segment by segment.
      destination = segments.filter((s) => s !== '').map((s) => s.replace(/\0/g, '_')).join('/');
    }
    if (this.batches.has(id)) return { status: 409, message: `A batch with ID ${id} already exists` };
    const peer = peers.find((p) => p.username === username);
    if (!peer || peer.online === false || peer.behaviour === 'offline') return { status: 404, message: `User ${username} appears to be offline` };
    const result = this.transfers.enqueue(peer, username, files, { id, ...(destination === undefined ? {} : { destination }) });
    if (result.status !== 201) return { status: 400, message: result.message };
    const batch = {
      id, username, direction: 'Download', createdAt: new Date().toISOString(),
      options: { ...(destination === undefined ? {} : { destination }), ...(typeof options['externalId'] === 'string' ? { externalId: options['externalId'] } : {}) },
    };
    this.batches.set(id, batch);
    // The fake's enqueue only says how many files it skipped, not which; the plugin relies on the count.
    const failures = result.body.failed.map(() => ({ filename: '', message: 'Skipped: Already in progress' }));
    const status = failures.length === 0 ? 201 : failures.length === files.length ? 200 : 207;
    return { status, body: { batch, failures } };
  }

  find(id: string): Record<string, unknown> | undefined {
    return this.batches.get(id.toLowerCase());
  }
}
