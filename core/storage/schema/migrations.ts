import type { Migration } from '../schema-migrations.js';
import { SCHEMA_1 } from './schema-1.js';
import { SCHEMA_2 } from './schema-2.js';
import { SCHEMA_3 } from './schema-3.js';
import { SCHEMA_4 } from './schema-4.js';

/**
 * Every step of the schema, in order. A released step is never edited: a change is a new step at the end (the
 * version a database is at is the number of steps applied to it).
 */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'one database for every record', sql: SCHEMA_1 },
  { version: 2, name: 'pending items without an mbid, oldest first', sql: SCHEMA_2 },
  { version: 3, name: 'decision links, the notification outbox and core state', sql: SCHEMA_3 },
  { version: 4, name: 'users, stored API keys and requests', sql: SCHEMA_4 },
];
