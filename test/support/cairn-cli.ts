import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { TABLES } from '../../src/domains/catalog.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { onPostgres } from './database.ts';

/**
 * The `cairn` command as an operator runs it: a real process on a data dir (or
 * TEST_DATABASE_URL), for the CLI tests. `dataDir` is read at each call, since test files
 * make theirs in beforeAll.
 */
export const CAIRN_BIN = path.resolve('bin/cairn.js');

export function cairnCli(dataDir: () => string) {
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CAIRN_DATA_DIR: dataDir(),
    LOG_LEVEL: 'warn',
    ...(onPostgres ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}),
    ...extra,
  });

  /** Runs one command to its end, feeding it stdin; its exit code and output. */
  const run = (args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CAIRN_BIN, ...args], { env: env(opts.env) });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(opts.stdin ?? '');
    });

  /** `cairn serve` on `port`, once /health answers (tsx and PGlite can take a while under load). */
  const serve = async (port: number): Promise<ChildProcess> => {
    const child = spawn(process.execPath, [CAIRN_BIN, 'serve'], {
      env: env({ PORT: String(port) }),
      stdio: 'ignore',
    });
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    child.kill('SIGKILL');
    throw new Error('cairn serve did not come up');
  };

  return { env, run, serve };
}

/**
 * Seeds an embedded data dir (`<dataDir>/pg`, where the CLI keeps its database) from the migrated
 * template, sparing each CLI test file PGlite's initdb and every migration in a child process; on
 * PostgreSQL there is nothing to seed. The first run on an empty dir is tested once, in cli.test.ts
 * ("migrate").
 */
export async function seedDataDir(dataDir: string): Promise<void> {
  if (onPostgres) return;
  const seeded = await openDatabase({
    tables: TABLES,
    dataDir: path.join(dataDir, 'pg'),
    loadDataDir: new Blob([readFileSync(inject('pgliteTemplate'))]),
    migrate: false,
  });
  await seeded.close();
}
