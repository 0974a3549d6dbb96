import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * PGlite is a single-process database: two processes writing one data dir would corrupt it.
 * Whoever opens the embedded data dir (the server, or a `cairn` admin command) holds this
 * lock file for as long as it has the database open.
 *
 * The file names the holder's pid and, where the system tells it (Linux's /proc), when that
 * process started. A pid alone is not enough: after a crash, and above all in a container where
 * every start gets the same low pids, the pid in a stale lock is often held by another program by
 * the next start, and the lock would never be taken again (issue 38). A live pid whose start time
 * differs from the one written is another process, and the lock is stale.
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
      const started = startTimeOf(process.pid);
      writeSync(fd, started === null ? String(process.pid) : `${process.pid} ${started}`);
      closeSync(fd);
      return { release: () => releaseIfOurs(file) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(file);
      if (holder !== null && holder.pid !== process.pid && stillHeld(holder)) {
        throw new DataDirHeldError(dataDir, holder.pid);
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

interface Holder {
  pid: number;
  /** The holder's start time as the system counts it; absent where it could not be read. */
  started?: string;
}

function readHolder(file: string): Holder | null {
  try {
    const [pidText, started] = readFileSync(file, 'utf8').trim().split(/\s+/);
    const pid = Number.parseInt(pidText ?? '', 10);
    if (!Number.isInteger(pid) || pid <= 0) return null;
    return started && /^\d+$/.test(started) ? { pid, started } : { pid };
  } catch {
    return null;
  }
}

/** Whether the process that wrote the lock still runs: its pid is alive, and is still that process. */
function stillHeld(holder: Holder): boolean {
  if (!isAlive(holder.pid)) return false;
  const started = startTimeOf(holder.pid);
  // Where a start time was written and can be read, it decides; otherwise a live pid holds it.
  return holder.started === undefined || started === null || started === holder.started;
}

/**
 * When a process started, in clock ticks since boot (field 22 of /proc/<pid>/stat, counted after
 * the command name, which may itself hold spaces and parentheses); null where /proc is not there.
 */
export function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields from the state (field 3) on; the start time is field 22.
    const started = fields[22 - 3];
    return started && /^\d+$/.test(started) ? started : null;
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
  if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
}
