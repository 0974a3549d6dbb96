import { sql } from 'drizzle-orm';
import { NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres';
import type { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { type BatchStatement, runBatch } from './pg-batch.ts';
import { noteStatements } from './statement-count.ts';
import { built, type Statement, statementName } from './statement-template.ts';
import { ClosingStatements, type Row, type TransactionEnd } from './transaction-end.ts';

/**
 * A PostgreSQL transaction whose opening statement travels with its BEGIN and whose closing
 * statements travel with its COMMIT (transaction-end.ts): one round trip each, sent as a batch
 * (pg-batch.ts: the extended protocol with one Sync, every value a bound parameter, every statement
 * prepared on the connection the first time it runs there).
 * PostgreSQL plans each statement of a batch once per connection and runs them in order, after
 * those before it, so what follows a lock-taking closing statement should be small (the stored
 * answer's update by its key).
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
  opening?: Statement,
): Promise<T> {
  const internals = base as { dialect: PgDialect; schema: never; options: object };
  const client = await pool.connect();
  // pg-pool takes its own 'error' listener off a connection it hands out: a connection lost while
  // this transaction holds it but waits on no statement of its own (the backend terminated between
  // two of them) would emit 'error' with nobody listening, and that ends the process. It is
  // remembered instead: the next statement fails (503), and the connection is released as broken.
  let broken: Error | undefined;
  const lost = (err: Error) => {
    broken ??= err;
  };
  client.on('error', lost);
  const session = new NodePgSession(client, internals.dialect, internals.schema, internals.options);
  const tx = new NodePgTransaction(internals.dialect, session, internals.schema);
  const end = new ClosingStatements();
  try {
    let opened: Row[] = [];
    if (opening) {
      noteStatements(1);
      const results = await runBatch(client, [BEGIN, batchStatement(opening)]);
      opened = results[1]?.rows ?? [];
    } else {
      await tx.execute(sql`begin`);
    }
    const result = await fn(tx as unknown as Tx, end, opened);
    if (end.statements.length === 0) {
      await tx.execute(sql`commit`);
    } else {
      noteStatements(1);
      const results = await runBatch(client, [...end.statements.map(batchStatement), COMMIT]);
      end.ran(results.slice(0, end.statements.length).map((r) => r.rows));
    }
    return result;
  } catch (err) {
    if (!broken) {
      try {
        await tx.execute(sql`rollback`);
      } catch (rollbackFailed) {
        // The connection itself failed: the pool must not hand it out again.
        broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed));
      }
    }
    throw err;
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}

const PREFIX = 'cairn_b_';

/** A statement as a batch sends it: its text and values, named by its text. */
function batchStatement(statement: Statement): BatchStatement {
  const { text, params } = built(statement);
  return { text, values: [...params], name: statementName(text, PREFIX) };
}

const BEGIN: BatchStatement = { text: 'begin', values: [], name: `${PREFIX}begin` };
const COMMIT: BatchStatement = { text: 'commit', values: [], name: `${PREFIX}commit` };
