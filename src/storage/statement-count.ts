import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'drizzle-orm/logger';

/**
 * Counts the SQL statements one piece of work sends to the database (docs/performance.md,
 * "Round trips"): drizzle tells its logger of every statement it sends, on either driver, at the
 * moment it sends it, so the count follows the async context of the work that sent it. On
 * PostgreSQL a transaction's BEGIN and COMMIT are statements drizzle sends too; PGlite's driver
 * sends them itself, so its transactions note those two here, and both databases count alike.
 */

export interface StatementTally {
  statements: number;
}

const scope = new AsyncLocalStorage<StatementTally>();

/** Drizzle's logger: one more statement for the work in progress, if it is being counted. */
export const statementLogger: Logger = {
  logQuery() {
    const tally = scope.getStore();
    if (tally) tally.statements += 1;
  },
};

/** `n` statements a driver sent without drizzle's logger (PGlite's BEGIN and COMMIT). */
export function noteStatements(n: number): void {
  const tally = scope.getStore();
  if (tally) tally.statements += n;
}

/** Runs `fn` with its statements counted into `tally` (callback style, for Fastify hooks). */
export function countStatementsInto<T>(tally: StatementTally, fn: () => T): T {
  return scope.run(tally, fn);
}
