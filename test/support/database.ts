import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { TABLES } from '../../src/domains/catalog.ts';
import { type Database, openDatabase } from '../../src/storage/database.ts';

/** The database a test file uses: the shared PostgreSQL test database, or a fresh copy of the PGlite template. */
export async function openTestDatabase(): Promise<Database> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) return openDatabase({ tables: TABLES, databaseUrl: url, migrate: false, poolSize: 10 });
  const template = inject('pgliteTemplate');
  return openDatabase({
    tables: TABLES,
    dataDir: 'memory://',
    loadDataDir: new Blob([readFileSync(template)]),
    migrate: false,
  });
}

export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
