/**
 * Pending items without an mbid, in the order they were added: background enrichment walks them one at a time
 * from where it left off (core/metadata/candidate-enricher.ts). Without it, that walk read every pending row, which
 * at a million pending items took 1.7 s of start-up before the first request was answered.
 */
export const SCHEMA_2 = `
CREATE INDEX queue_pending_without_mbid ON queue_items (added_at, id) WHERE status = 'pending' AND mbid IS NULL;
`;
