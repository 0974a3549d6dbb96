import { lt, type SQL } from 'drizzle-orm';
import { openCursor, signCursor } from '../../kernel/cursor.ts';
import { cutPage } from '../../kernel/paging.ts';

/**
 * Pages of the skills area's lists: newest first, cut by id (ids sort by creation), with a cursor
 * signed and bound to `binding` (caller, subject, filters), so a cursor of another list, caller or
 * filter is refused (CURSOR_INVALID).
 */

export interface PageQuery {
  limit: number;
  cursor?: string | undefined;
}

/** One page of rows ordered by id descending; `fetch` reads `limit + 1` rows before an id. */
export async function pageById<T extends { id: string }>(
  secret: string,
  binding: unknown[],
  page: PageQuery,
  fetch: (before: SQL | undefined, take: number) => Promise<T[]>,
  idColumn: Parameters<typeof lt>[0],
): Promise<{ rows: T[]; next_cursor: string | null }> {
  const bound = JSON.stringify(binding);
  const before = page.cursor
    ? lt(idColumn, String(openCursor<{ id: string }>(secret, bound, page.cursor).id))
    : undefined;
  const { rows, next } = cutPage(await fetch(before, page.limit + 1), page.limit, (last) =>
    signCursor(secret, bound, { id: last.id }),
  );
  return { rows, next_cursor: next };
}

/** The versions of the version's skill, newest first, marking the one asked about. */
