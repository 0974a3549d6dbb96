import { pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns.ts';

/**
 * Tables of the server itself, not of an area. Each area declares its own tables in its
 * `tables.ts` and adds them to `Tables` below, so the drizzle schema type covers them all.
 */

/** Server-wide settings shared by every replica (e.g. the generated signing secret). */
export const serverSettings = pgTable('server_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  createdAt: ts('created_at').notNull(),
});

/**
 * Every table in the database, as the drizzle schema type sees them: the server's own here, and
 * each area's added by its `tables.ts` (`declare module`). The catalogue's TABLES is the same set
 * at run time.
 */
export interface Tables {
  serverSettings: typeof serverSettings;
}
