import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import type { TestProject } from 'vitest/node';
import { TABLES } from '../../src/domains/catalog.ts';
import { applyMigrations, MIGRATIONS_DIR, openDatabase } from '../../src/storage/database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of a migrated PGlite data-dir dump; empty when the suite runs on PostgreSQL. */
    pgliteTemplate: string;
  }
}

/**
 * Runs once per test run. PostgreSQL: migrate the test database. Embedded: build one migrated
 * PGlite and dump it, so each test file starts from a copy in well under a second instead of
 * paying initdb (3-5 s) again.
 */
export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const database = await openDatabase({ tables: TABLES, databaseUrl: url, migrate: false });
    await applyMigrations(database, url);
    await database.close();
    project.provide('pgliteTemplate', '');
    return;
  }
  const template = await PGlite.create();
  await migrate(drizzle(template), { migrationsFolder: MIGRATIONS_DIR });
  const dump = await template.dumpDataDir('none');
  await template.close();
  const dir = path.resolve('.tmp');
  mkdirSync(dir, { recursive: true });
  // One per project of the run (vitest.config.ts): each project runs this setup.
  const file = path.join(dir, `pglite-template-${process.pid}-${project.name || 'root'}.tar`);
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteTemplate', file);
  return () => rmSync(file, { force: true });
}
