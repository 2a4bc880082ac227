/** How many records of each kind an import of an earlier data dir wrote (logged, and kept with the import record). */
export interface ImportCounts {
  pending: number;
  approved: number;
  rejected: number;
  /** Wishlist items from their first download on. */
  wishlist: number;
  /** Wishlist items waiting for their first download. */
  waiting: number;
  downloads: number;
  archived_downloads: number;
  jobs: number;
  archived_jobs: number;
  /** Events kept: the dashboard's latest and those some sink had yet to take. */
  events: number;
  /** Deliveries still owed: one per event and sink. */
  undelivered: number;
  library_albums: number;
  sources: number;
  plugin_entries: number;
}

export const noImportCounts = (): ImportCounts => ({
  pending: 0, approved: 0, rejected: 0, wishlist: 0, waiting: 0, downloads: 0, archived_downloads: 0, jobs: 0, archived_jobs: 0,
  events: 0, undelivered: 0, library_albums: 0, sources: 0, plugin_entries: 0,
});
