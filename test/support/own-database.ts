import { randomBytes } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import pg from 'pg';
import { TABLES } from '../../src/domains/catalog.ts';
import { type Database, openDatabase } from '../../src/storage/database.ts';

/**
 * A PostgreSQL database of one test file's own, on the shared test server, for fault tests that
 * take it away or kill what uses it: nothing they do can disturb tests running beside them.
 * Migrated on open; dropped (after its connections are ended) by `drop`.
 */
export interface OwnDatabase {
  url: string;
  database: Database;
  /** Refuses new connections and ends every current one, as a restart or failover would. */
  takeAway(): Promise<void>;
  giveBack(): Promise<void>;
  /** A raw read for a test's audit of what was stored. */
  audit<T>(query: SQL): Promise<T[]>;
  drop(): Promise<void>;
}

export async function ownDatabase(prefix: string, sharedUrl: string, poolSize = 3): Promise<OwnDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: sharedUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const own = new URL(sharedUrl);
  own.pathname = `/${name}`;
  const url = own.toString();
  const database = await openDatabase({ tables: TABLES, databaseUrl: url, poolSize });
  const endConnections = () =>
    admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
  return {
    url,
    database,
    async takeAway() {
      await admin.query(`alter database ${name} allow_connections false`);
      await endConnections();
    },
    async giveBack() {
      await admin.query(`alter database ${name} allow_connections true`);
    },
    async audit<T>(query: SQL) {
      return ((await database.db.execute(query)) as unknown as { rows: T[] }).rows;
    },
    async drop() {
      await database.close();
      await admin.query(`alter database ${name} allow_connections true`);
      await endConnections();
      await admin.query(`drop database if exists ${name}`);
      await admin.end();
    },
  };
}
