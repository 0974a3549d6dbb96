import { createRequire } from 'node:module';
import pg from 'pg';

// pg's own mapping of a value to its wire text (Dates, Buffers, arrays, JSON), as every query binds.
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue: (value: unknown) => unknown;
};

/** One statement of a batch: its text with $n parameters, their values, and its name if prepared. */
export interface BatchStatement {
  text: string;
  values: unknown[];
  /** Prepared under this name on the connection the first time it runs there; unnamed if absent. */
  name?: string | undefined;
}

/**
 * Several statements in one round trip, over the extended protocol: for each, Parse (only the first
 * time a named one runs on this connection), Bind, Describe and Execute, then one Sync, written in
 * one go. PostgreSQL answers them in order; the first that fails makes it skip the rest until the
 * Sync, so a transaction's COMMIT behind a failed statement is never run.
 *
 * node-postgres sends one statement per round trip outside its pipeline mode (a connection-wide
 * setting with a Sync per statement); this is a query object of its own kind (a "Submittable", as
 * pg-cursor is), built on pg's Query, which already gathers the results of several statements.
 * Values are bound as parameters exactly as pg binds them, so nothing is written into the text.
 */
export function runBatch(client: pg.PoolClient, statements: BatchStatement[]): Promise<pg.QueryResult[]> {
  return new Promise((resolve, reject) => {
    client.query(
      new Batch(statements, (err, results) => {
        if (err) reject(err);
        else resolve(results);
      }),
    );
  });
}

interface Connection {
  stream: { cork?: () => void; uncork?: () => void };
  parsedStatements: Record<string, string>;
  parse(msg: { text: string; name?: string; types?: unknown[] }): void;
  bind(msg: { statement?: string; values: unknown[] }): void;
  describe(msg: { type: 'P' | 'S'; name?: string }): void;
  execute(msg: { portal?: string; rows?: number }): void;
  close(msg: { type: 'P' | 'S'; name?: string }): void;
  sync(): void;
}

type Done = (err: Error | null, results: pg.QueryResult[]) => void;

class Batch extends pg.Query {
  constructor(statements: BatchStatement[], done: Done) {
    super({
      // Read by nothing here (this query writes its own messages); kept short.
      text: statements[0]?.text ?? '',
      // pg's Query keeps one result for one statement and an array for several.
      callback: (err: Error | null, results: pg.QueryResult | pg.QueryResult[]) =>
        done(err, err ? [] : Array.isArray(results) ? results : [results]),
    } as unknown as pg.QueryConfig);
    // `submit` is declared as a property in pg's types; pg calls it when the connection is free.
    (this as { submit: unknown }).submit = (connection: Connection) => send(this, connection, statements);
  }
}

/** Writes the batch; an Error back (nothing written) fails it, as pg's own queries do. */
function send(batch: Batch, con: Connection, statements: BatchStatement[]): Error | undefined {
  let values: unknown[][];
  try {
    values = statements.map((s) => s.values.map((v) => prepareValue(v)));
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
  const parsing: BatchStatement[] = [];
  con.stream.cork?.();
  try {
    statements.forEach((s, i) => {
      if (s.name && con.parsedStatements[s.name] !== s.text) {
        // Not parsed on this connection for sure: a batch that failed may have parsed it before
        // failing, so it is closed first (closing a statement that does not exist is no error).
        con.close({ type: 'S', name: s.name });
        con.parse({ text: s.text, name: s.name });
        parsing.push(s);
      } else if (!s.name) {
        con.parse({ text: s.text });
      }
      con.bind({ statement: s.name ?? '', values: values[i] as unknown[] });
      con.describe({ type: 'P', name: '' });
      con.execute({ portal: '' });
    });
    con.sync();
  } finally {
    con.stream.uncork?.();
  }
  // Known parsed once the whole batch has run (pg emits 'end' only then).
  batch.once('end', () => {
    for (const s of parsing) con.parsedStatements[s.name as string] = s.text;
  });
  return undefined;
}
