import type { ResearchLinks } from './release-group-detail.schema.js';

/**
 * Where a person can read and hear more about an album before deciding. MusicBrainz and ListenBrainz pages go by
 * the release group's MBID; Last.fm pages go by names (spaces as `+`, as its own URLs write them); Bandcamp has no
 * MBIDs, so the link is an album search.
 */
export function researchLinks(mbid: string, artist: string, title: string): ResearchLinks {
  const lastfmPart = (text: string) => encodeURIComponent(text).replace(/%20/g, '+');
  const bandcamp = new URL('https://bandcamp.com/search');
  bandcamp.searchParams.set('q', `${artist} ${title}`);
  bandcamp.searchParams.set('item_type', 'a');
  return {
    musicbrainz: `https://musicbrainz.org/release-group/${mbid}`,
    listenbrainz: `https://listenbrainz.org/album/${mbid}/`,
    lastfm: `https://www.last.fm/music/${lastfmPart(artist)}/${lastfmPart(title)}`,
    bandcamp_search: bandcamp.href,
  };
}
