import { getTableName, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { arenaPublications } from '../tables.ts';

/**
 * A column named with its table, whatever the query around it: drizzle leaves the columns of a
 * one-table select bare, which inside a correlated subquery would name the inner table's column.
 */
export const qualified = (column: AnyPgColumn): SQL =>
  sql`${sql.identifier(getTableName(column.table))}.${sql.identifier(column.name)}`;

/** The outer publication's id and run, as the subqueries of a publication's row refer to them. */
export const OUTER_PUBLICATION_ID = qualified(arenaPublications.id);
export const OUTER_PUBLICATION_RUN = qualified(arenaPublications.runId);
