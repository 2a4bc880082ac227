import assert from 'node:assert/strict';
import { api } from '../helpers/api-client.js';

export interface SeedOptions {
  /** Sent with every request (e.g. HTTP Basic when auth is on). */
  headers?: Record<string, string>;
  prefix?: string;
  source?: (i: number) => string;
  /** Every n-th item gets a cover (default 4; 1 gives every item one). */
  coverEvery?: number;
}

const COVER = 'data:image/svg+xml,' + encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 4"><rect width="4" height="4" fill="#d94"/><rect x="1" y="1" width="2" height="2" fill="#fff"/></svg>',
);

/** Adds `count` distinct pending candidates through the API, 1000 per request (the API's batch limit). */
export async function seedQueue(baseUrl: string, count: number, options: SeedOptions = {}): Promise<void> {
  const prefix = options.prefix ?? 'Artist';
  const coverEvery = options.coverEvery ?? 4;
  const sources = options.source ?? ((i: number) => ['listenbrainz', 'lastfm', 'manual'][i % 3] ?? 'manual');
  for (let start = 0; start < count; start += 1000) {
    const batch = [];
    for (let i = start; i < Math.min(count, start + 1000); i++) {
      const n = String(i + 1).padStart(5, '0');
      batch.push({
        artist: `${prefix} ${n}`,
        album: `Record number ${n}`,
        source: sources(i),
        score: Math.round(((i * 37) % 100) + (i % 7) / 10) / 1,
        year: 1960 + (i % 64),
        ...(i % coverEvery === 0 ? { cover_url: COVER } : {}),
      });
    }
    const res = await api(baseUrl, 'POST', '/api/v1/queue', batch, options.headers);
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
}
