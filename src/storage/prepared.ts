import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Executor } from './database.ts';
import { statementName } from './statement-template.ts';

/**
 * Hot statements, built once per process and run on whichever executor a call has: the database
 * or an open transaction.
 *
 * drizzle builds a query's SQL on every call and PostgreSQL parses and plans it on every call; for
 * the three-table join of a task tool that was about 1.3 ms, against 0.36 ms for the same statement
 * prepared (docs/performance.md, "Prepared statements"). drizzle's own `.prepare()` binds the
 * statement to the handle it was built on, so a statement prepared on the database could not run
 * inside a transaction. This keeps the one built statement and, for each call, runs it through the
 * client of the executor given (its session's `client`, which both drivers' prepared queries
 * read when they execute). That is drizzle's inside, so drizzle-orm is pinned and prepared.test.ts
 * fails if the statement stops running in the caller's transaction.
 *
 * On PostgreSQL the statement is named: each pooled connection parses it once and keeps it. The
 * text behind a name never changes, so a name must only ever be given one shape of query; values
 * go in as `sql.placeholder(...)`.
 */

interface Runnable<R> {
  execute(values?: Record<string, unknown>): Promise<R>;
}

interface Prepared<R> extends Runnable<R> {
  client: unknown;
}

/** The driver's client behind an executor: the pool or PGlite, or the transaction's connection. */
function clientOf(ex: Executor): unknown {
  return (ex._.session as unknown as { client: unknown }).client;
}

/**
 * A statement `build` makes on an executor, prepared as `name` the first time it runs and reused
 * on every executor after (one per driver, should a process use both).
 */
export function preparedStatement<R>(
  name: string,
  build: (ex: Executor) => { prepare(name: string): Runnable<R> },
): (ex: Executor, values: Record<string, unknown>) => Promise<R> {
  const byDriver = new Map<unknown, Prepared<R>>();
  return (ex, values) => {
    const session = Object.getPrototypeOf(ex._.session);
    let built = byDriver.get(session);
    if (!built) {
      built = build(ex).prepare(name) as Prepared<R>;
      byDriver.set(session, built);
    }
    const client = clientOf(ex);
    // The same statement with this call's client; everything else is the built one's.
    const bound: Prepared<R> =
      built.client === client ? built : Object.create(built, { client: { value: client } });
    return bound.execute(values);
  };
}

const dialect = new PgDialect();

/**
 * Runs a statement built for each call (raw `sql`) as a named statement, named by its text, so
 * PostgreSQL parses and plans each text once per connection. Only for statements whose text takes
 * a few shapes, with every value a parameter (appendEvent: one shape for each set of rows that
 * travel with an event): every shape stays prepared on every pooled connection, so a text that
 * varies without bound (an IN list of any length) must not come here. Answers as `ex.execute`.
 */
export function executeNamed<R>(ex: Executor, query: SQL): Promise<R> {
  const built = dialect.sqlToQuery(query);
  const name = statementName(built.sql, 'cairn_');
  return ex._.session.prepareQuery(built, undefined, name, false).execute() as Promise<R>;
}
