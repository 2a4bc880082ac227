import { albumKey, SourceCandidate, type DiscoverySource, type KnownAs, type LibraryArtist, type SourceRun } from '@crateflow/sdk';
import assert from 'node:assert/strict';
import { compileStrict } from '../../../core/schema/ajv.js';

export interface FakeSourceRunOptions {
  readonly artists?: readonly LibraryArtist[];
  /** Release groups the "server" already has, by MBID. */
  readonly known?: Iterable<readonly [string, KnownAs]>;
  /** Albums the server has by name only (artist, album). */
  readonly knownByName?: Iterable<readonly [string, string, KnownAs]>;
  readonly lastCompletedAt?: string;
  /** Aborts the run's signal once `progress()` reports this many units done (a shutdown midway). */
  readonly abortAtProgress?: number;
}

const validCandidate = compileStrict<SourceCandidate>(SourceCandidate);

/**
 * What the server gives one run of a source, in memory: library artists, what is already known (and what the
 * run yields becomes known, as the server queues each batch), progress reports, and an abort switch.
 */
export class FakeSourceRun implements SourceRun {
  readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  readonly lastCompletedAt: string | undefined;
  readonly progressReports: { done: number; total: number | undefined }[] = [];
  readonly knownChecks: { mbid?: string; artist: string; album?: string }[] = [];
  private readonly knownMbids: Map<string, KnownAs>;
  private readonly knownNames: Map<string, KnownAs>;

  constructor(private readonly options: FakeSourceRunOptions = {}) {
    this.lastCompletedAt = options.lastCompletedAt;
    this.knownMbids = new Map(options.known ?? []);
    this.knownNames = new Map([...(options.knownByName ?? [])].map(([artist, album, as]) => [albumKey(artist, album), as]));
  }

  progress(done: number, total?: number): void {
    this.progressReports.push({ done, total });
    if (this.options.abortAtProgress !== undefined && done >= this.options.abortAtProgress) this.controller.abort();
  }

  async libraryArtists(): Promise<readonly LibraryArtist[]> {
    return [...(this.options.artists ?? [])].sort((a, b) => b.albums - a.albums);
  }

  known(candidate: { readonly mbid?: string; readonly artist: string; readonly album?: string }): KnownAs | undefined {
    this.knownChecks.push({ ...candidate });
    const byMbid = candidate.mbid ? this.knownMbids.get(candidate.mbid) : undefined;
    return byMbid ?? (candidate.album === undefined ? undefined : this.knownNames.get(albumKey(candidate.artist, candidate.album)));
  }

  /** The server queued it. */
  queue(candidate: SourceCandidate): void {
    this.knownMbids.set(candidate.mbid, 'queue');
  }
}

/**
 * Runs `source.discover(run)` to the end the way the server does: each batch is checked against the sdk's
 * SourceCandidate schema and queued (becomes known) before the next is asked for.
 */
export async function collect(source: DiscoverySource, run: FakeSourceRun): Promise<SourceCandidate[]> {
  const all: SourceCandidate[] = [];
  for await (const batch of source.discover(run)) {
    for (const candidate of batch) {
      assert.ok(validCandidate(candidate), `an invalid candidate: ${JSON.stringify(validCandidate.errors)} in ${JSON.stringify(candidate)}`);
      run.queue(candidate);
      all.push(candidate);
    }
  }
  return all;
}

/**
 * Takes `batches` batches and then walks away without closing the iterator, like a process killed with -9
 * right after the server queued them: no `finally` of the source runs.
 */
export async function takeThenKill(source: DiscoverySource, run: FakeSourceRun, batches: number): Promise<SourceCandidate[]> {
  const iterator = source.discover(run)[Symbol.asyncIterator]();
  const taken: SourceCandidate[] = [];
  for (let i = 0; i < batches; i++) {
    const next = await iterator.next();
    if (next.done) break;
    for (const candidate of next.value) {
      run.queue(candidate);
      taken.push(candidate);
    }
  }
  return taken;
}
