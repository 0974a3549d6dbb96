import { type SQL, sql } from 'drizzle-orm';
import { NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { noteStatements } from './statement-count.ts';
import { ClosingStatements, type Row, type TransactionEnd } from './transaction-end.ts';

/**
 * A PostgreSQL transaction whose opening statement travels with its BEGIN and whose closing
 * statements travel with its COMMIT (transaction-end.ts): one round trip each.
 *
 * node-postgres sends one statement per round trip (its pipelining is not in the released 8.x),
 * so each goes as one simple-protocol query (`begin; <statement>`, `<statement>; …; commit`),
 * with values written in as literals by pg's own `escapeLiteral` (libpq's rules: quotes doubled,
 * and backslashes doubled under E'', right whatever `standard_conforming_strings` says). Only
 * strings, numbers, booleans and null are accepted as values; anything else throws rather than
 * being guessed at.
 * PostgreSQL plans each statement of such a query just before it runs, after those before it, so
 * what follows a lock-taking closing statement should be small (the stored answer's update by
 * its key).
 *
 * Otherwise this is drizzle's own `NodePgSession.transaction`: a pooled connection, BEGIN, the
 * work on a transaction bound to that connection, ROLLBACK when anything throws. A failing
 * closing statement makes PostgreSQL skip everything behind it, COMMIT included; the ROLLBACK then
 * ends the transaction, so nothing of it is kept.
 */
export async function pgTransaction<T, Tx>(
  pool: pg.Pool,
  /** The database handle's session (`db._.session`), whose dialect, schema and options the transaction shares. */
  base: unknown,
  fn: (tx: Tx, end: TransactionEnd, opened: Row[]) => Promise<T>,
  opening?: SQL,
): Promise<T> {
  const internals = base as { dialect: PgDialect; schema: never; options: object };
  const client = await pool.connect();
  const session = new NodePgSession(client, internals.dialect, internals.schema, internals.options);
  const tx = new NodePgTransaction(internals.dialect, session, internals.schema);
  const end = new ClosingStatements();
  let broken: Error | undefined;
  try {
    let opened: Row[] = [];
    if (opening) {
      noteStatements(1);
      const results = (await client.query(`begin;\n${inlined(opening)}`)) as unknown as pg.QueryResult[];
      opened = results[1]?.rows ?? [];
    } else {
      await tx.execute(sql`begin`);
    }
    const result = await fn(tx as unknown as Tx, end, opened);
    if (end.statements.length === 0) {
      await tx.execute(sql`commit`);
    } else {
      noteStatements(1);
      const text = [...end.statements.map(inlined), 'commit'].join(';\n');
      const results = (await client.query(text)) as unknown as pg.QueryResult[];
      end.ran(results.slice(0, end.statements.length).map((r) => r.rows));
    }
    return result;
  } catch (err) {
    try {
      await tx.execute(sql`rollback`);
    } catch (rollbackFailed) {
      // The connection itself failed: the pool must not hand it out again.
      broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed));
    }
    throw err;
  } finally {
    client.release(broken);
  }
}

const dialect = new PgDialect();

/** `statement` as text with its values written in as SQL literals. */
export function inlined(statement: SQL): string {
  const { sql: text, params } = dialect.sqlToQuery(statement);
  // drizzle numbers its values $1, $2, … in the order they stand in the text. One pass over the
  // text, so a literal that happens to contain "$2" is never rewritten; a $n out of that order is
  // not one of drizzle's (a dollar sign in raw SQL) and stops the statement rather than guess.
  let next = 1;
  const written = text.replace(/\$(\d+)/g, (_, n: string) => {
    if (Number(n) !== next)
      throw new Error(`cannot write ${statementStart(text)} with literals: $${n} out of order`);
    return literal(params[next++ - 1]);
  });
  if (next !== params.length + 1)
    throw new Error(`cannot write ${statementStart(text)} with literals: values left over`);
  return written;
}

function statementStart(text: string): string {
  return JSON.stringify(text.trim().slice(0, 40));
}

function literal(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  throw new Error(
    `a statement sent with BEGIN or COMMIT takes strings, numbers, booleans and null, not ${typeof value}`,
  );
}
