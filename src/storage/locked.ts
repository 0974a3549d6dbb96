import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * "Lock the row or refuse": the one row a select finds, locked FOR UPDATE until the transaction
 * ends, or the caller's refusal (a NOT_FOUND) when there is none. `of` locks only that table's
 * row of a join; `only` refuses a found row the caller may not change in the same words as none,
 * so the answer never tells one caller's rows from nobody's.
 */
export async function lockedOne<R>(
  query: { for(strength: 'update', config?: { of?: PgTable }): PromiseLike<R[]> },
  refusal: () => Error,
  options: { of?: PgTable; only?: (row: R) => boolean } = {},
): Promise<R> {
  const [row] = await query.for('update', options.of ? { of: options.of } : undefined);
  if (row === undefined || (options.only && !options.only(row))) throw refusal();
  return row;
}
