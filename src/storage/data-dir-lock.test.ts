import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirHeldError, lockDataDir, startTimeOf } from './data-dir-lock.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('lockDataDir', () => {
  it('takes and releases the lock', () => {
    const lock = lockDataDir(dir);
    expect(readFileSync(path.join(dir, 'cairn.lock'), 'utf8')).toBe(
      `${process.pid} ${startTimeOf(process.pid)}`,
    );
    lock.release();
    expect(existsSync(path.join(dir, 'cairn.lock'))).toBe(false);
  });

  it('refuses while the process that wrote the lock runs, and takes it once that pid is another process', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => holder.once('spawn', r));
      const pid = holder.pid as number;
      const started = startTimeOf(pid);
      expect(started).toMatch(/^\d+$/);
      // As that process would have written it.
      writeFileSync(path.join(dir, 'cairn.lock'), `${pid} ${started}`);
      expect(() => lockDataDir(dir)).toThrow(new RegExp(`in use by another Cairn process \\(pid ${pid}\\)`));
      // The same pid, but a process that started at another time: the writer died and its pid
      // was given to another program (in a container, the next start's low pids).
      writeFileSync(path.join(dir, 'cairn.lock'), `${pid} ${Number(started) - 1}`);
      const lock = lockDataDir(dir);
      expect(readFileSync(path.join(dir, 'cairn.lock'), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
      lock.release();
    } finally {
      holder.kill();
    }
  });

  it('refuses while a live process holds a lock that names no start time (older versions), naming the pid', () => {
    // pid 1 is always alive.
    writeFileSync(path.join(dir, 'cairn.lock'), '1');
    expect(() => lockDataDir(dir)).toThrow(DataDirHeldError);
    expect(() => lockDataDir(dir)).toThrow(/in use by another Cairn process \(pid 1\)/);
  });

  it('treats a fresh empty lock as held: its writer may not have written its pid yet', () => {
    writeFileSync(path.join(dir, 'cairn.lock'), '');
    expect(() => lockDataDir(dir)).toThrow(DataDirHeldError);
    const old = new Date(Date.now() - 60_000);
    utimesSync(path.join(dir, 'cairn.lock'), old, old);
    lockDataDir(dir).release();
  });

  it('takes over a lock whose holder died', () => {
    const dead = spawnSync(process.execPath, [
      '-e',
      'process.stdout.write(String(process.pid))',
    ]).stdout.toString();
    writeFileSync(path.join(dir, 'cairn.lock'), dead);
    const lock = lockDataDir(dir);
    expect(readFileSync(path.join(dir, 'cairn.lock'), 'utf8')).toMatch(new RegExp(`^${process.pid} \\d+$`));
    lock.release();
  });
});
