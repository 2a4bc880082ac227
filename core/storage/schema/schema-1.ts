/**
 * The first schema. Each record is kept whole as JSON in `record` (the shape the API answers with), beside the
 * columns that are filtered, sorted or matched on. Only the table's own module writes a row, from the record, so
 * the columns cannot disagree with it. `seq` (the rowid) is the order rows were inserted in.
 *
 * Match keys: `mbid` is the lower-case MusicBrainz id; `name_key` is the set of credited artists and the title
 * (core/library/album-keys.ts nameKeyOf), so "is this album known?" is an indexed lookup on either.
 */
export const SCHEMA_1 = `
CREATE TABLE queue_items (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  source TEXT NOT NULL,
  added_at TEXT NOT NULL,
  score REAL,
  year INTEGER NOT NULL,
  name_sort TEXT NOT NULL,
  search_text TEXT NOT NULL,
  mbid TEXT,
  name_key TEXT,
  decided_seq INTEGER UNIQUE,
  record TEXT NOT NULL,
  CHECK ((status = 'pending') = (decided_seq IS NULL))
) STRICT;
CREATE INDEX queue_pending_by_added ON queue_items (added_at, id) WHERE status = 'pending';
CREATE INDEX queue_pending_by_score ON queue_items (score, id) WHERE status = 'pending';
CREATE INDEX queue_pending_by_name ON queue_items (name_sort, id) WHERE status = 'pending';
CREATE INDEX queue_pending_by_year ON queue_items (year, id) WHERE status = 'pending';
CREATE INDEX queue_pending_by_source ON queue_items (source, added_at, id) WHERE status = 'pending';
CREATE INDEX queue_decided ON queue_items (status, decided_seq) WHERE decided_seq IS NOT NULL;
CREATE INDEX queue_by_mbid ON queue_items (mbid) WHERE mbid IS NOT NULL;
CREATE INDEX queue_by_name_key ON queue_items (name_key) WHERE name_key IS NOT NULL;

-- Counts kept by the database itself, so a page's total costs one lookup at a million items.
CREATE TABLE queue_counts (
  status TEXT NOT NULL,
  source TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (status, source)
) STRICT, WITHOUT ROWID;
CREATE TRIGGER queue_counted AFTER INSERT ON queue_items BEGIN
  INSERT INTO queue_counts (status, source, n) VALUES (NEW.status, NEW.source, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER queue_uncounted AFTER DELETE ON queue_items BEGIN
  UPDATE queue_counts SET n = n - 1 WHERE status = OLD.status AND source = OLD.source;
END;
CREATE TRIGGER queue_recounted AFTER UPDATE OF status, source ON queue_items BEGIN
  UPDATE queue_counts SET n = n - 1 WHERE status = OLD.status AND source = OLD.source;
  INSERT INTO queue_counts (status, source, n) VALUES (NEW.status, NEW.source, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- A wishlist item waits (entered_seq NULL, always wanted) until its first download; entered_seq then numbers it
-- after every item entered before. not_before is in ms since the epoch, so "due by now" is a number comparison.
CREATE TABLE wishlist_items (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL CHECK (status IN ('wanted', 'downloading', 'downloaded', 'failed')),
  entered_seq INTEGER,
  not_before INTEGER,
  mbid TEXT,
  name_key TEXT,
  record TEXT NOT NULL,
  CHECK (entered_seq IS NOT NULL OR status = 'wanted')
) STRICT;
-- Partial indexes, not UNIQUE columns: the planner takes "x IS NULL" on a unique index for one row and would walk
-- every waiting item for a page of one status.
CREATE UNIQUE INDEX wishlist_entered ON wishlist_items (entered_seq) WHERE entered_seq IS NOT NULL;
CREATE INDEX wishlist_by_status ON wishlist_items (status, entered_seq) WHERE entered_seq IS NOT NULL;
CREATE INDEX wishlist_waiting ON wishlist_items (seq) WHERE entered_seq IS NULL;
CREATE INDEX wishlist_by_mbid ON wishlist_items (mbid) WHERE mbid IS NOT NULL;
CREATE INDEX wishlist_by_name_key ON wishlist_items (name_key) WHERE name_key IS NOT NULL;

CREATE TABLE wishlist_counts (
  status TEXT NOT NULL,
  waiting INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (status, waiting)
) STRICT, WITHOUT ROWID;
CREATE TRIGGER wishlist_counted AFTER INSERT ON wishlist_items BEGIN
  INSERT INTO wishlist_counts (status, waiting, n) VALUES (NEW.status, NEW.entered_seq IS NULL, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER wishlist_uncounted AFTER DELETE ON wishlist_items BEGIN
  UPDATE wishlist_counts SET n = n - 1 WHERE status = OLD.status AND waiting = (OLD.entered_seq IS NULL);
END;
CREATE TRIGGER wishlist_recounted AFTER UPDATE OF status, entered_seq ON wishlist_items BEGIN
  UPDATE wishlist_counts SET n = n - 1 WHERE status = OLD.status AND waiting = (OLD.entered_seq IS NULL);
  INSERT INTO wishlist_counts (status, waiting, n) VALUES (NEW.status, NEW.entered_seq IS NULL, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- A download is live (archived_seq NULL) while its wishlist item is on the wishlist; a completed one is archived
-- when the item goes, numbered after every download archived before, and listed after the live ones.
CREATE TABLE downloads (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  wishlist_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'searching', 'downloading', 'completed', 'failed')),
  archived_seq INTEGER,
  record TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX downloads_archived ON downloads (archived_seq) WHERE archived_seq IS NOT NULL;
CREATE INDEX downloads_by_wishlist_item ON downloads (wishlist_id, seq) WHERE archived_seq IS NULL;
CREATE INDEX downloads_live ON downloads (seq) WHERE archived_seq IS NULL;
CREATE INDEX downloads_live_by_state ON downloads (state, seq) WHERE archived_seq IS NULL;
CREATE INDEX downloads_archived_by_state ON downloads (state, archived_seq) WHERE archived_seq IS NOT NULL;

CREATE TABLE download_counts (
  state TEXT NOT NULL,
  archived INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (state, archived)
) STRICT, WITHOUT ROWID;
CREATE TRIGGER download_counted AFTER INSERT ON downloads BEGIN
  INSERT INTO download_counts (state, archived, n) VALUES (NEW.state, NEW.archived_seq IS NOT NULL, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER download_uncounted AFTER DELETE ON downloads BEGIN
  UPDATE download_counts SET n = n - 1 WHERE state = OLD.state AND archived = (OLD.archived_seq IS NOT NULL);
END;
CREATE TRIGGER download_recounted AFTER UPDATE OF state, archived_seq ON downloads BEGIN
  UPDATE download_counts SET n = n - 1 WHERE state = OLD.state AND archived = (OLD.archived_seq IS NOT NULL);
  INSERT INTO download_counts (state, archived, n) VALUES (NEW.state, NEW.archived_seq IS NOT NULL, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;

-- Jobs are all kept. As before, each (kind, source) keeps its newest 100 finished jobs live; older ones are
-- archived (numbered in the order they were, archived_seq) and listed after every live job, so GET /jobs pages
-- the same as when the archive was a file.
CREATE TABLE jobs (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  source TEXT,
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  archived_seq INTEGER,
  record TEXT NOT NULL,
  CHECK (archived_seq IS NULL OR status <> 'running')
) STRICT;
CREATE UNIQUE INDEX jobs_archived ON jobs (archived_seq) WHERE archived_seq IS NOT NULL;
CREATE INDEX jobs_live ON jobs (seq) WHERE archived_seq IS NULL;
CREATE INDEX jobs_live_by_kind ON jobs (kind, seq) WHERE archived_seq IS NULL;
CREATE INDEX jobs_live_by_source ON jobs (kind, source, seq) WHERE archived_seq IS NULL;
CREATE INDEX jobs_live_by_status ON jobs (status, seq) WHERE archived_seq IS NULL;
CREATE INDEX jobs_archived_by_kind ON jobs (kind, archived_seq) WHERE archived_seq IS NOT NULL;
CREATE INDEX jobs_archived_by_kind_status ON jobs (kind, status, archived_seq) WHERE archived_seq IS NOT NULL;
CREATE INDEX jobs_archived_by_status ON jobs (status, archived_seq) WHERE archived_seq IS NOT NULL;

CREATE TABLE job_counts (
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  archived INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (kind, status, archived)
) STRICT, WITHOUT ROWID;
CREATE TRIGGER job_counted AFTER INSERT ON jobs BEGIN
  INSERT INTO job_counts (kind, status, archived, n) VALUES (NEW.kind, NEW.status, NEW.archived_seq IS NOT NULL, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER job_uncounted AFTER DELETE ON jobs BEGIN
  UPDATE job_counts SET n = n - 1 WHERE kind = OLD.kind AND status = OLD.status AND archived = (OLD.archived_seq IS NOT NULL);
END;
CREATE TRIGGER job_recounted AFTER UPDATE OF kind, status, archived_seq ON jobs BEGIN
  UPDATE job_counts SET n = n - 1 WHERE kind = OLD.kind AND status = OLD.status AND archived = (OLD.archived_seq IS NOT NULL);
  INSERT INTO job_counts (kind, status, archived, n) VALUES (NEW.kind, NEW.status, NEW.archived_seq IS NOT NULL, 1) ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  record TEXT NOT NULL
) STRICT;
-- The transactional outbox: a row per event and sink that has not taken it yet.
CREATE TABLE event_deliveries (
  sink TEXT NOT NULL,
  event_seq INTEGER NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
  PRIMARY KEY (sink, event_seq)
) STRICT, WITHOUT ROWID;
CREATE INDEX event_deliveries_by_event ON event_deliveries (event_seq);

CREATE TABLE library_albums (
  position INTEGER PRIMARY KEY,
  artist_key TEXT NOT NULL,
  search_text TEXT NOT NULL,
  record TEXT NOT NULL
) STRICT;
CREATE INDEX library_by_artist ON library_albums (artist_key);
-- No foreign key: only the library table writes these, always whole, and the key check made clearing 300,000 keys
-- take seconds instead of a hundred milliseconds.
CREATE TABLE library_keys (
  key TEXT NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (key, position)
) STRICT, WITHOUT ROWID;
CREATE INDEX library_keys_by_position ON library_keys (position);
CREATE TABLE library_state (
  only INTEGER PRIMARY KEY CHECK (only = 1),
  synced_at TEXT,
  count INTEGER NOT NULL
) STRICT;

CREATE TABLE source_state (
  name TEXT PRIMARY KEY,
  record TEXT NOT NULL
) STRICT;

-- The sdk's plugin storage: keys in insertion order per plugin (an update keeps its place).
CREATE TABLE plugin_entries (
  plugin TEXT NOT NULL,
  key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (plugin, key)
) STRICT;
CREATE UNIQUE INDEX plugin_entries_in_order ON plugin_entries (plugin, seq);

-- The data of an earlier version (the JSON documents and line files before this database) was imported: written in
-- the import's own transaction, so a crash after it and before the old files moved away never imports them twice.
CREATE TABLE pre_sqlite_import (
  only INTEGER PRIMARY KEY CHECK (only = 1),
  imported_at TEXT NOT NULL,
  counts TEXT NOT NULL
) STRICT;
`;
