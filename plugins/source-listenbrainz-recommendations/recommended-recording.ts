import { arrayField, isRecord, numberField, stringField, type JsonRecord } from '@crateflow/sdk';

/** One collaborative-filtering recommendation, as far as this source uses it. */
export interface RecommendedRecording {
  readonly mbid: string;
  /** The raw ALS prediction: not 0–1, may exceed 1 or be negative (shared/reference/listenbrainz-api.md §3.1). */
  readonly score: number;
  /** The user has already played it (`latest_listened_at` set). */
  readonly listened: boolean;
}

const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `payload.mbids` of `/1/cf/recommendation/user/{user}/recording`, best first; malformed items are dropped. */
export function readRecommendations(body: JsonRecord): RecommendedRecording[] {
  const payload = isRecord(body['payload']) ? body['payload'] : {};
  return arrayField(payload, 'mbids').filter(isRecord).flatMap((item) => {
    const mbid = stringField(item, 'recording_mbid');
    if (!mbid || !MBID.test(mbid)) return [];
    return [{ mbid: mbid.toLowerCase(), score: numberField(item, 'score') ?? 0, listened: typeof item['latest_listened_at'] === 'string' }];
  });
}
