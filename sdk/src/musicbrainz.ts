/**
 * MusicBrainz as the server offers it to plugins (`context.musicbrainz`): one client per server, shared by every
 * plugin, that keeps MusicBrainz's etiquette for you (at most one request a second on average, a User-Agent naming
 * Crateflow and its address, backoff on 503, a disk cache with TTLs). Never call musicbrainz.org yourself: two
 * clients on one address break the rate limit for both.
 *
 * Lookups answer `undefined` for an MBID MusicBrainz does not know (404). A merged MBID answers with the entity
 * that absorbed it, so `mbid` in a result can differ from the one asked for. Calls reject with a `RetryLaterError`
 * when MusicBrainz stays unavailable, and with an `AbortError` when the server shuts down.
 *
 * @example
 * const hits = await context.musicbrainz?.searchReleaseGroups({ title: 'Geogaddi', artist: 'Boards of Canada' });
 */
export interface MusicBrainz {
  /** Release groups matching a title (and optionally an artist and primary type), best score first. */
  searchReleaseGroups(query: ReleaseGroupQuery): Promise<ReleaseGroupHit[]>;
  /**
   * Every release group crediting the artist anywhere in its credit (all browse pages), optionally only some types
   * (`album`, `ep`, …), each with its whole artist credit: a collaboration says "A & B" whichever of them was browsed.
   */
  releaseGroupsOfArtist(artistMbid: string, types?: readonly string[]): Promise<ReleaseGroup[] | undefined>;
  /** One release group with its artist credit, first release date and types. */
  releaseGroup(mbid: string): Promise<ReleaseGroup | undefined>;
  /** The release groups a recording appears on, each once. */
  recordingReleaseGroups(recordingMbid: string): Promise<RecordingReleaseGroups | undefined>;
  /** Artists whose name matches, best score first (namesakes tie at 100: compare `disambiguation`). */
  searchArtists(name: string, limit?: number): Promise<ArtistHit[]>;
  artist(mbid: string): Promise<Artist | undefined>;
  /**
   * The tracks of a release group (sdk 1.3; optional, so feature-detect it): those of its earliest official release
   * with the track count most of its releases share, so a deluxe edition or a promo does not stand for the album.
   * Undefined for an unknown release group; `tracks` is empty when it has no release.
   *
   * @example
   * const list = await context.musicbrainz?.releaseGroupTracklist?.(mbid);
   */
  releaseGroupTracklist?(releaseGroupMbid: string): Promise<Tracklist | undefined>;
}

/** The track list {@link MusicBrainz.releaseGroupTracklist} chose, and the release it comes from. */
export interface Tracklist {
  /** The release whose tracks these are; undefined when the group has no release. */
  readonly releaseMbid: string | undefined;
  /** Every medium's tracks in order, numbered from 1 across media. */
  readonly tracks: readonly TracklistTrack[];
}

export interface TracklistTrack {
  /** 1-based, counted across every medium of the release. */
  readonly position: number;
  readonly title: string;
  /** Milliseconds; undefined when MusicBrainz does not know. */
  readonly lengthMs: number | undefined;
  readonly recordingMbid: string | undefined;
}

export interface ReleaseGroupQuery {
  readonly title: string;
  readonly artist?: string;
  /**
   * With no `artist`: also match release groups whose artist credit matches `title`, as a search box does with
   * what a person typed ("Low" finds albums by Low, not only albums called Low). Optional (sdk 1.x, additive).
   */
  readonly orArtist?: boolean;
  /** Lower-case primary type, e.g. `album`. */
  readonly primaryType?: string;
  /** 1–100 (default 25). */
  readonly limit?: number;
}

export interface CreditedArtist {
  readonly mbid: string;
  readonly name: string;
}

export interface ReleaseGroup {
  readonly mbid: string;
  readonly title: string;
  /** `Album`, `EP`, `Single`, …; null when MusicBrainz has none. */
  readonly primaryType: string | null;
  /** `Compilation`, `Live`, …; empty for a plain album. */
  readonly secondaryTypes: readonly string[];
  /** `1997`, `1997-06` or `1997-06-16`; undefined when unknown (MusicBrainz sends `""` or leaves it out). */
  readonly firstReleaseDate: string | undefined;
  /**
   * The credit as printed (`A & B`: each credited name and its join phrase); undefined when the answer carried no
   * credit (a client that does not ask MusicBrainz for it).
   */
  readonly artistCredit: string | undefined;
  readonly artists: readonly CreditedArtist[];
}

export interface ReleaseGroupHit extends ReleaseGroup {
  /** 0–100; several hits can share 100. */
  readonly score: number;
  /** How many releases the group has. */
  readonly releaseCount: number;
}

export interface RecordingReleaseGroups {
  readonly mbid: string;
  readonly title: string;
  readonly artistCredit: string;
  readonly releaseGroups: readonly ReleaseGroup[];
}

export interface Artist {
  readonly mbid: string;
  readonly name: string;
  readonly sortName: string;
  /** Tells namesakes apart; undefined when none. */
  readonly disambiguation: string | undefined;
  readonly type: string | undefined;
  readonly country: string | undefined;
}

export interface ArtistHit extends Artist {
  readonly score: number;
}
