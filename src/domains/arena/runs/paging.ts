import { and, eq, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';

/**
 * Newest-first pages of runs by (time, id): the condition for rows after a cursor, and the cursor
 * at a row, for kernel/paging's cutPage. The cursor is signed for `binding` (the caller and the
 * filters), so it cannot be replayed by someone else or under other filters.
 */
interface Position extends Record<string, unknown> {
  at: string;
  id: string;
}

export function afterCursor(
  secret: string,
  binding: string,
  cursor: string | undefined,
  at: PgColumn,
  id: PgColumn,
): SQL | undefined {
  if (cursor === undefined) return undefined;
  const p = openCursor<Position>(secret, binding, cursor);
  const when = new Date(String(p.at));
  return or(lt(at, when), and(eq(at, when), lt(id, String(p.id))));
}

/** The cursor for the rows after `last`; none when the row has no time yet. */
export function cursorAt(
  secret: string,
  binding: string,
  last: { at: Date | null; id: string },
): string | null {
  return last.at ? signCursor(secret, binding, { at: last.at.toISOString(), id: last.id }) : null;
}
