import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { type ListenerChange, type ListenerState, PgListener } from './pg-listener.ts';
import { pgTransaction } from './pg-transaction.ts';
import { noteStatements, statementLogger } from './statement-count.ts';
import { built, type Statement } from './statement-template.ts';
import type { Tables } from './tables.ts';
import { ClosingStatements, type Row, type TransactionEnd } from './transaction-end.ts';

export type { ListenerChange, ListenerState } from './pg-listener.ts';
export type { BuiltStatement, Statement } from './statement-template.ts';
export type { ClosingRows, Row, TransactionEnd } from './transaction-end.ts';

/** Every table of every area (storage/tables.ts explains how areas add theirs). */
export type Schema = { [K in keyof Tables]: Tables[K] };
/** The database handle: the same type for PGlite and node-postgres. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** What repos take: the database or an open transaction. Inside a transaction, always use `tx`. */
export type Executor = Db | PgTransaction<PgQueryResultHKT, Schema>;

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /**
   * Runs fn in one transaction; it commits when fn resolves and rolls back when it throws. What
   * fn hands to `end.sendWithCommit` runs last, with the COMMIT; `opening` runs first, with the
   * BEGIN, and fn gets its rows (transaction-end.ts).
   */
  transaction<T>(
    fn: (tx: Executor, end: TransactionEnd, opened: Row[]) => Promise<T>,
    opening?: Statement,
  ): Promise<T>;
  /** True when a trivial query succeeds. */
  healthy(): Promise<boolean>;
  poolStats(): PoolStats | null;
  /**
   * Calls `onPayload` for every NOTIFY on `channel`, from any process using this database.
   * Resolves to the function that stops listening.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Every channel this process listens to, and whether its connection listens now (on PostgreSQL
   * a lost LISTEN connection is replaced with backoff; meanwhile its wake-ups come only from the
   * waiters' periodic re-checks). Always up on the embedded database.
   */
  listeners(): ListenerState[];
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Every table (the catalogue's TABLES): the schema behind the handle's type. */
  tables: Schema;
  databaseUrl?: string | undefined;
  /** Embedded data directory (PGlite). */
  dataDir?: string;
  /** A PGlite data-dir dump to start from (the test template). */
  loadDataDir?: Blob;
  poolSize?: number;
  /** Apply pending migrations after opening (the default). */
  migrate?: boolean;
  /** Told about errors of idle PostgreSQL connections (the pool replaces them). */
  onPoolError?: (err: Error) => void;
  /** Told when a LISTEN connection is lost, fails to come back, and comes back. */
  onListener?: (change: ListenerChange) => void;
}

/** Opens PostgreSQL when a URL is given, the embedded PGlite database otherwise. */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const database = opts.databaseUrl ? await openPostgres(opts) : await openPglite(opts);
  if (opts.migrate !== false) await applyMigrations(database, opts.databaseUrl);
  return database;
}

async function openPglite(opts: OpenOptions): Promise<Database> {
  if (opts.dataDir && !opts.dataDir.startsWith('memory://')) mkdirSync(opts.dataDir, { recursive: true });
  const client = await PGlite.create({
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
  });
  const inTransaction = guardAgainstDbInTransaction(client);
  const channels: string[] = [];
  const db = drizzlePglite(client, { schema: opts.tables, logger: statementLogger }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    transaction: (fn, opening) => {
      noteStatements(2); // BEGIN and COMMIT (or ROLLBACK), which PGlite sends past drizzle's logger
      return inTransaction.run(true, () =>
        db.transaction(async (tx) => {
          // In process there is no round trip to save: the opening statement simply runs first,
          // the closing ones last.
          const opened = opening ? await executeStatement(tx, opening) : [];
          const end = new ClosingStatements();
          const result = await fn(tx, end, opened);
          const rows: Row[][] = [];
          for (const statement of end.statements) {
            rows.push(await executeStatement(tx, statement));
          }
          end.ran(rows);
          return result;
        }),
      );
    },
    healthy: () => ping(db),
    poolStats: () => null,
    // PGlite calls listeners while it commits the notifying transaction; they run outside its
    // context, so what they start is ordinary work that waits for the commit to finish.
    listen: async (channel, onPayload) => {
      const unlisten = await client.listen(channel, (payload) =>
        inTransaction.exit(() => onPayload(payload)),
      );
      channels.push(channel);
      return async () => {
        channels.splice(channels.indexOf(channel), 1);
        await unlisten();
      };
    },
    // In process, a listener cannot lose its connection.
    listeners: () => channels.map((channel) => ({ channel, up: true, downSince: null })),
    close: () => client.close(),
  };
}

/** Runs an opening or closing statement on PGlite, through drizzle. */
async function executeStatement(tx: Executor, statement: Statement): Promise<Row[]> {
  const { text, params } = built(statement);
  const result = await tx._.session
    .prepareQuery({ sql: text, params: [...params] }, undefined, undefined, false)
    .execute();
  return (result as unknown as { rows: Row[] }).rows;
}

/**
 * PGlite runs one statement at a time: a query on the database handle while a transaction is
 * open waits for that transaction, which waits for the query: a deadlock. Such a query is a bug
 * (it would also run outside the transaction on PostgreSQL), so fail it loudly instead.
 */
function guardAgainstDbInTransaction(client: PGlite): AsyncLocalStorage<boolean> {
  const inTransaction = new AsyncLocalStorage<boolean>();
  for (const method of ['query', 'exec'] as const) {
    const original = client[method].bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      if (inTransaction.getStore()) {
        return Promise.reject(
          new Error('The database handle was used inside a transaction; use the transaction (tx) instead.'),
        );
      }
      return original(...args);
    };
  }
  return inTransaction;
}

async function openPostgres(opts: OpenOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: opts.databaseUrl,
    max: opts.poolSize ?? 10,
    idleTimeoutMillis: 30_000,
    // An unreachable or stuck database must turn into errors (and 503 on /health), not hung requests.
    connectionTimeoutMillis: 5_000,
    statement_timeout: 30_000,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  // (One held by a transaction is watched by the transaction: pg-transaction.ts.)
  pool.on('error', (err) => opts.onPoolError?.(err));
  const listeners = new Set<PgListener>();
  const db = drizzleNodePg(pool, { schema: opts.tables, logger: statementLogger }) as unknown as Db;
  return {
    kind: 'postgres',
    db,
    transaction: (fn, opening) => pgTransaction(pool, db._.session, fn, opening),
    healthy: () => ping(db),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    // LISTEN needs a connection of its own for as long as it listens (see pg-listener.ts).
    listen: async (channel, onPayload) => {
      const listener = new PgListener({
        databaseUrl: opts.databaseUrl,
        channel,
        onPayload,
        onChange: opts.onListener,
      });
      await listener.start();
      listeners.add(listener);
      return async () => {
        listeners.delete(listener);
        await listener.stop();
      };
    },
    listeners: () => [...listeners].map((l) => l.state()),
    close: () => pool.end(),
  };
}

async function ping(db: Db): Promise<boolean> {
  try {
    await db.execute(sql`select 1`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Applies pending migrations. On PostgreSQL several replicas may start at once, so the
 * migration runs on one dedicated connection under an advisory lock.
 */
export async function applyMigrations(database: Database, databaseUrl?: string): Promise<void> {
  if (database.kind === 'pglite') {
    await migratePglite(database.db as never, { migrationsFolder: MIGRATIONS_DIR });
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  // A connection lost between two migration statements fails the next one (and so the start),
  // instead of emitting 'error' with nobody listening, which would end the process unexplained.
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('select pg_advisory_lock(727274)');
    await migrateNodePg(drizzleNodePg(client), { migrationsFolder: MIGRATIONS_DIR });
  } finally {
    await client.query('select pg_advisory_unlock(727274)').catch(() => {});
    await client.end();
  }
}
