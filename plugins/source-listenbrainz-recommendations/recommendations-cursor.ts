import { arrayField, booleanField, isRecord, numberField, stringField, type JsonValue, type PluginStorage } from '@crateflow/sdk';
import type { RecordingAlbum } from './album-of-recording.js';
import type { RecommendedRecording } from './recommended-recording.js';

/**
 * Where an unfinished run stands, in the plugin's storage, so a run killed midway resumes where it stopped: the
 * recommendations it fetched (`run`), the album each recording resolved to so far (`album/<index>`, one small
 * write per MusicBrainz lookup) and the albums already yielded. Removed when a run completes.
 */
export interface RecommendationsRun {
  readonly user: string;
  readonly recordings: readonly RecommendedRecording[];
  /** Album per recording, in order; `null` for a recording on no album that qualifies. */
  readonly albums: (RecordingAlbum | null)[];
  readonly emitted: string[];
}

const RUN = 'run';
const ALBUM = 'album/';

export class RecommendationsCursor {
  constructor(private readonly storage: PluginStorage) {}

  /** The unfinished run for `user`, or undefined (none, another user's, or unreadable). */
  load(user: string): RecommendationsRun | undefined {
    const stored = this.storage.get(RUN);
    if (!isRecord(stored) || stringField(stored, 'user') !== user) return undefined;
    const recordings = arrayField(stored, 'recordings').filter(isRecord).flatMap((item) => {
      const mbid = stringField(item, 'mbid');
      return mbid ? [{ mbid, score: numberField(item, 'score') ?? 0, listened: booleanField(item, 'listened') ?? false }] : [];
    });
    const albums: (RecordingAlbum | null)[] = [];
    const storedAlbums = [...this.storage.entries(ALBUM)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [key, value] of storedAlbums) {
      const album = readAlbum(value);
      // Resume from the first gap or unreadable entry: what follows it is looked up again (from the cache).
      if (album === undefined || key !== albumKey(albums.length)) break;
      albums.push(album);
    }
    const emitted = arrayField(stored, 'emitted').filter((mbid): mbid is string => typeof mbid === 'string');
    return { user, recordings, albums: albums.slice(0, recordings.length), emitted };
  }

  async begin(user: string, recordings: readonly RecommendedRecording[]): Promise<RecommendationsRun> {
    await this.clear();
    const run = { user, recordings, albums: [], emitted: [] };
    await this.storage.set(RUN, toJson(run));
    return run;
  }

  /** Records the album of the next recording (index `run.albums.length`). */
  async resolved(run: RecommendationsRun, album: RecordingAlbum | null): Promise<void> {
    const index = run.albums.length;
    run.albums.push(album);
    await this.storage.set(albumKey(index), album && { ...album, artists: album.artists.map((artist) => ({ ...artist })) });
  }

  /** Marks albums as proposed; call it before yielding them. */
  async emitted(run: RecommendationsRun, mbids: readonly string[]): Promise<void> {
    run.emitted.push(...mbids);
    await this.storage.set(RUN, toJson(run));
  }

  async clear(): Promise<void> {
    const keys = [...this.storage.entries(ALBUM)].map(([key]) => key);
    await Promise.all([...keys.map((key) => this.storage.delete(key)), this.storage.delete(RUN)]);
  }
}

function albumKey(index: number): string {
  return `${ALBUM}${String(index).padStart(4, '0')}`;
}

function toJson(run: RecommendationsRun): JsonValue {
  return { user: run.user, recordings: run.recordings.map((item) => ({ ...item })), emitted: [...run.emitted] };
}

/** A stored album, `null` for "none", undefined when the entry is unreadable (the run resumes from there). */
function readAlbum(value: JsonValue): RecordingAlbum | null | undefined {
  if (value === null) return null;
  if (!isRecord(value)) return undefined;
  const mbid = stringField(value, 'mbid');
  const title = stringField(value, 'title');
  const artist = stringField(value, 'artist');
  if (!mbid || title === undefined || artist === undefined) return undefined;
  const artists = arrayField(value, 'artists').filter(isRecord).flatMap((item) => {
    const id = stringField(item, 'mbid');
    const name = stringField(item, 'name');
    return id && name ? [{ mbid: id, name }] : [];
  });
  const recordingMbid = stringField(value, 'recordingMbid');
  return { mbid, title, artist, artists, year: numberField(value, 'year') ?? null, recording: stringField(value, 'recording') ?? '', ...(recordingMbid ? { recordingMbid } : {}) };
}
