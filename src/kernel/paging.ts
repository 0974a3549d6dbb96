/**
 * Keyset pages (DESIGN.md convention 9): a list reads one row past the page (`.limit(limit + 1)`),
 * so the extra row tells whether more follow without a count. This cuts such a read to the page
 * and names where the next page starts; how a position is written (a signed cursor, a bare id or
 * seq) stays with the list, as do the names its answer gives them.
 */

export interface Page<T, C> {
  /** The first `limit` rows, in the order read. */
  rows: T[];
  /** `cursorOf` the last row shown when more rows followed it; null on the last page. */
  next: C | null;
}

/** `rows` as read with `limit + 1`, cut to `limit`; `cursorOf` may also answer null (no position). */
export function cutPage<T, C = string>(
  rows: readonly T[],
  limit: number,
  cursorOf: (last: T) => C | null,
): Page<T, C> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { rows: shown, next: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}
