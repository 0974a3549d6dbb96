import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * PGlite is a single-process database: two processes writing one data dir would corrupt it.
 * Whoever opens the embedded data dir (the server, or a `cairn` admin command) holds this
 * lock file for as long as it has the database open.
 */

export class DataDirHeldError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by another Cairn process${pid > 0 ? ` (pid ${pid})` : ''}. ` +
        'Stop that process first, or run Cairn on PostgreSQL (DATABASE_URL) to administer it while it serves.',
    );
    this.name = 'DataDirHeldError';
  }
}

export interface DataDirLock {
  release(): void;
}

const LOCK_NAME = 'cairn.lock';

/** Takes the lock, or throws DataDirHeldError when a live process holds it. A stale lock is taken over. */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = path.join(dataDir, LOCK_NAME);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => releaseIfOurs(file) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(file);
      if (holder !== null && holder !== process.pid && isAlive(holder)) {
        throw new DataDirHeldError(dataDir, holder);
      }
      // An empty lock may be one another process has just created and not yet written: only an
      // old one is abandoned. (Two processes taking over one stale lock in the same instant remain
      // possible; a laptop's single server and its admin commands do not do that.)
      if (holder === null && Date.now() - mtimeOf(file) < FRESH_LOCK_MS)
        throw new DataDirHeldError(dataDir, 0);
      // The holder died without cleaning up: remove its lock and try once more.
      rmSync(file, { force: true });
    }
  }
  throw new Error(`Could not take the lock ${file}`);
}

const FRESH_LOCK_MS = 10_000;

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function readHolder(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseIfOurs(file: string): void {
  if (readHolder(file) === process.pid) rmSync(file, { force: true });
}
