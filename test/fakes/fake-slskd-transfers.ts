import { randomUUID } from 'node:crypto';
import { access, mkdir, truncate, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { isJsonObject } from './is-json-object.js';
import type { FakeSlskdPeer } from './fake-slskd-catalogue.js';
import { dotNetTimestamp } from './fake-slskd-searches.js';

/** How transfers move on: one state per GET on a transfers endpoint, or one state every `everyMs`. */
export type TransferPacing = 'poll' | { readonly everyMs: number };

interface Phase {
  readonly state: string;
  /** Share of the bytes transferred once this phase is reached. */
  readonly done?: number;
  readonly exception?: string;
}

export interface TransferRecord {
  readonly id: string;
  readonly username: string;
  readonly filename: string;
  readonly size: number;
  readonly plan: readonly Phase[];
  readonly requestedAt: Date;
  readonly placeInQueue: number;
  step: number;
  state: string;
  bytesTransferred: number;
  enqueuedAt?: Date;
  startedAt?: Date;
  endedAt?: Date;
  exception?: string;
  removed: boolean;
  /** Where the finished file is (being) written. */
  localPath?: string;
  /** 0.26+ batch: its `options.destination` (the local folder under downloads) and id. */
  readonly destination?: string;
  readonly batchId?: string;
  /** Moves still to do after `Completed, Succeeded` before the file is whole in the downloads directory. */
  moveStepsLeft: number;
}

/** What an enqueue carries besides the files: a 0.26+ batch's id and destination. */
export interface EnqueueBatch {
  readonly id: string;
  readonly destination?: string;
}

export type EnqueueResult =
  | { readonly status: 201; readonly body: { enqueued: Record<string, unknown>[]; failed: Record<string, never>[] } }
  | { readonly status: 400 | 500; readonly message: string };

/** slskd's download records, their state machine, and the files they leave in the downloads directory. */
export class FakeSlskdTransfers {
  readonly records: TransferRecord[] = [];

  constructor(
    private readonly downloadsDir: string,
    private readonly pacing: TransferPacing,
    private readonly inProgressSteps: number,
    /**
     * How many transfer reads a file takes to reach the downloads directory after `Completed, Succeeded`: the
     * first write is a partial copy, the last the whole file. slskd's `DownloadService.cs` sets the state before
     * `Files.MoveFile`, and a move across filesystems is a copy (0 = the file is whole before the state says so).
     */
    private readonly moveSteps: number,
    /** slskd's version decides the transfer JSON shape (0.26 adds `attempts`, `batchId`; drops `startOffset`). */
    readonly version: string,
  ) {}

  enqueue(peer: FakeSlskdPeer | undefined, username: string, body: unknown, batch?: EnqueueBatch): EnqueueResult {
    if (!Array.isArray(body)) return { status: 400, message: 'The request body must be an array of files' };
    if (body.length === 0) return { status: 400, message: 'At least one file is required' };
    const requests: { filename: string; size: number }[] = [];
    for (const item of body) {
      if (!isJsonObject(item) || typeof item['filename'] !== 'string') return { status: 400, message: 'Each file needs a filename' };
      if (item['filename'].split(/[\\/]/).includes('..')) return { status: 400, message: `Invalid filename ${item['filename']}: path traversal` };
      requests.push({ filename: item['filename'], size: typeof item['size'] === 'number' ? item['size'] : 0 });
    }
    if (!peer || peer.online === false || peer.behaviour === 'offline') {
      return { status: 500, message: `Failed to enqueue download(s): User ${username} appears to be offline` };
    }
    const failing = new Set(peer.files.filter((file) => file.fails).map((file) => file.filename));
    const enqueued: Record<string, unknown>[] = [];
    const failed: Record<string, never>[] = [];
    requests.forEach((request, index) => {
      const previous = this.records.filter((r) => !r.removed && r.username === username && r.filename === request.filename);
      if (previous.some((r) => !isTerminal(r))) {
        failed.push({}); // a C# value tuple that serialises as {}; the message would be "Skipped: Already in progress"
        return;
      }
      for (const old of previous) old.removed = true;
      const shared = peer.files.some((file) => file.filename === request.filename);
      const errors = peer.behaviour === 'partial' && (failing.size > 0 ? failing.has(request.filename) : index % 2 === 1);
      const plan = !shared
        ? rejectedPlan('File not shared.')
        : peer.behaviour === 'reject'
          ? rejectedPlan('Transfer rejected: peer refused the request')
          : peer.behaviour === 'queued-forever'
            ? [{ state: 'Queued, Locally' }, { state: 'Queued, Remotely' }]
            : peer.behaviour === 'stuck-at-zero'
              ? [{ state: 'Queued, Locally' }, { state: 'Queued, Remotely' }, { state: 'Initializing' }, { state: 'InProgress', done: 0 }]
              : errors ? erroredPlan() : this.succeededPlan();
      const record: TransferRecord = {
        id: randomUUID(), username, filename: request.filename, size: request.size, plan,
        requestedAt: new Date(), placeInQueue: (peer.queueLength ?? 0) + 1,
        step: 0, state: plan[0]?.state ?? 'Queued, Locally', bytesTransferred: 0, removed: false,
        moveStepsLeft: this.moveSteps, ...(batch ? { batchId: batch.id, destination: batch.destination } : {}),
      };
      this.records.push(record);
      enqueued.push(toTransferJson(record, this.version));
    });
    return { status: 201, body: { enqueued, failed } };
  }

  /** Moves every unfinished transfer on, and every succeeded file one step further into the downloads directory. */
  async advance(): Promise<void> {
    const now = Date.now();
    for (const record of this.records) {
      if (record.state === 'Completed, Succeeded' && record.moveStepsLeft > 0) {
        record.moveStepsLeft--;
        await this.writeDownloadedFile(record, 1 - record.moveStepsLeft / Math.max(1, this.moveSteps));
        continue;
      }
      const target = this.pacing === 'poll' ? record.step + 1 : Math.floor((now - record.requestedAt.getTime()) / this.pacing.everyMs);
      while (!isTerminal(record) && record.step < Math.min(target, record.plan.length - 1)) {
        record.step++;
        await this.enter(record, record.plan[record.step]);
      }
    }
  }

  find(username: string, id: string): TransferRecord | undefined {
    return this.records.find((r) => r.username === username && r.id === id.toLowerCase());
  }

  visible(includeRemoved = false): TransferRecord[] {
    return this.records.filter((r) => includeRemoved || !r.removed);
  }

  /** DELETE /transfers/downloads/{username}/{id}: cancels an unfinished transfer; `remove` also hides it. */
  cancel(record: TransferRecord, remove: boolean): void {
    if (!isTerminal(record)) {
      record.state = 'Completed, Cancelled';
      record.endedAt = new Date();
    }
    if (remove) record.removed = true;
  }

  private succeededPlan(): Phase[] {
    const steps = Math.max(1, this.inProgressSteps);
    const progress = Array.from({ length: steps }, (_, i): Phase => ({ state: 'InProgress', done: (i + 1) / (steps + 1) }));
    return [{ state: 'Queued, Locally' }, { state: 'Queued, Remotely' }, ...progress, { state: 'Completed, Succeeded', done: 1 }];
  }

  private async enter(record: TransferRecord, phase: Phase | undefined): Promise<void> {
    if (!phase) return;
    if (phase.state === 'Queued, Remotely') record.enqueuedAt = new Date();
    if (phase.state === 'InProgress') record.startedAt ??= new Date();
    // With moveSteps 0 the file is whole before the state says so; otherwise the move follows on later reads.
    if (phase.state === 'Completed, Succeeded' && this.moveSteps === 0) await this.writeDownloadedFile(record, 1);
    if (phase.done !== undefined) record.bytesTransferred = Math.round(record.size * phase.done);
    if (phase.exception !== undefined) record.exception = phase.exception;
    if (phase.state.startsWith('Completed')) record.endedAt = new Date();
    record.state = phase.state;
  }

  /**
   * Writes `share` of the file: at `<downloads>/<batch destination>/<file name>` for a 0.26 batch with a
   * destination, else `<downloads>/<last remote folder>/<file name>` (segments split on `\` and `/`, as
   * slskd's `FileSafety.SanitizePath` does). A name already taken gets a `_<ticks>` suffix on the first write.
   */
  private async writeDownloadedFile(record: TransferRecord, share: number): Promise<void> {
    if (record.localPath === undefined) {
      const segments = record.filename.split(/[\\/]/).filter((segment) => segment !== '');
      const name = sanitize(segments.at(-1) ?? record.id);
      const folder = record.destination ?? (segments.length > 1 ? sanitize(segments.at(-2) ?? '') : '');
      const directory = join(this.downloadsDir, folder);
      await mkdir(directory, { recursive: true });
      let path = join(directory, name);
      if (await exists(path)) {
        const extension = extname(name);
        path = join(directory, `${name.slice(0, name.length - extension.length)}_${dotNetTicks()}${extension}`);
      }
      const header = Buffer.from(`fake slskd download of ${record.filename} from ${record.username}\n`);
      await writeFile(path, header.subarray(0, Math.min(header.length, record.size)));
      record.localPath = path;
    }
    // Grow towards the announced size without writing every byte: a sparse file keeps large albums cheap.
    await truncate(record.localPath, Math.round(record.size * Math.min(1, share)));
  }
}

export function isTerminal(record: TransferRecord): boolean {
  return record.state.startsWith('Completed');
}

/** The transfer as slskd serialises it (0.25 or 0.26 shape); computed members are worked out on each read. */
export function toTransferJson(record: TransferRecord, version = '0.25.1'): Record<string, unknown> {
  const v026 = !/^0\.(?:1?\d|2[0-5])\./.test(version);
  const now = record.endedAt?.getTime() ?? Date.now();
  const elapsedMs = record.startedAt ? Math.max(1, now - record.startedAt.getTime()) : undefined;
  const averageSpeed = elapsedMs ? record.bytesTransferred / (elapsedMs / 1000) : 0;
  const remaining = record.size - record.bytesTransferred;
  const inProgress = record.state === 'InProgress';
  return {
    id: record.id,
    username: record.username,
    direction: 'Download',
    filename: record.filename,
    size: record.size,
    startOffset: v026 ? undefined : 0,
    state: record.state,
    // Transfers are read back from slskd's SQLite database, so their UTC times come without a `Z` (slskd-api.md §6).
    requestedAt: dotNetTimestamp(record.requestedAt, true),
    enqueuedAt: record.enqueuedAt && dotNetTimestamp(record.enqueuedAt, true),
    startedAt: record.startedAt && dotNetTimestamp(record.startedAt, true),
    endedAt: record.endedAt && dotNetTimestamp(record.endedAt, true),
    bytesTransferred: record.bytesTransferred,
    averageSpeed,
    bytesRemaining: remaining,
    elapsedTime: elapsedMs === undefined ? undefined : formatTimeSpan(elapsedMs),
    percentComplete: record.size === 0 ? 0 : (record.bytesTransferred / record.size) * 100,
    remainingTime: inProgress && averageSpeed > 0 ? formatTimeSpan((remaining / averageSpeed) * 1000) : undefined,
    placeInQueue: record.state === 'Queued, Remotely' ? record.placeInQueue : undefined,
    exception: record.exception,
    removed: record.removed,
    // 0.26+: slskd's own retry counter and batch; nextAttemptAt exists as a column but no slskd code sets it.
    attempts: v026 ? 1 : undefined,
    batchId: v026 ? record.batchId : undefined,
  };
}

/** GET /transfers/downloads: users, then remote directories, then transfers. */
export function groupByUser(records: readonly TransferRecord[], version?: string): Record<string, unknown>[] {
  const users = new Map<string, Map<string, TransferRecord[]>>();
  for (const record of records) {
    const directories = users.get(record.username) ?? new Map<string, TransferRecord[]>();
    users.set(record.username, directories);
    const directory = record.filename.slice(0, Math.max(0, record.filename.lastIndexOf('\\'), record.filename.lastIndexOf('/')));
    directories.set(directory, [...(directories.get(directory) ?? []), record]);
  }
  return [...users].map(([username, directories]) => ({
    username,
    directories: [...directories].map(([directory, files]) => ({ directory, fileCount: files.length, files: files.map((f) => toTransferJson(f, version)) })),
  }));
}

function rejectedPlan(exception: string): Phase[] {
  return [{ state: 'Queued, Locally' }, { state: 'Requested' }, { state: 'Completed, Rejected', exception }];
}

function erroredPlan(): Phase[] {
  return [
    { state: 'Queued, Locally' },
    { state: 'Queued, Remotely' },
    { state: 'InProgress', done: 0.4 },
    { state: 'Completed, Errored', exception: 'Remote connection closed' },
  ];
}

/** .NET TimeSpan text: `[d.]hh:mm:ss.fffffff`. */
export function formatTimeSpan(ms: number): string {
  const ticks = Math.round(ms * 10_000);
  const totalSeconds = Math.floor(ticks / 10_000_000);
  const fraction = String(ticks % 10_000_000).padStart(7, '0');
  const days = Math.floor(totalSeconds / 86_400);
  const two = (n: number): string => String(n).padStart(2, '0');
  const clock = `${two(Math.floor(totalSeconds / 3600) % 24)}:${two(Math.floor(totalSeconds / 60) % 60)}:${two(totalSeconds % 60)}.${fraction}`;
  return days > 0 ? `${days}.${clock}` : clock;
}

/** Characters invalid in a Linux file name (what .NET's Path.GetInvalidFileNameChars gives there) become `_`. */
function sanitize(name: string): string {
  return name.replace(/[/\0]/g, '_');
}

function dotNetTicks(): string {
  return (BigInt(Date.now()) * 10_000n + 621_355_968_000_000_000n).toString();
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false, // any access error means "not there" for the collision check
  );
}
