import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirHeldError, lockDataDir } from './data-dir-lock.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('lockDataDir', () => {
  it('takes and releases the lock', () => {
    const lock = lockDataDir(dir);
    expect(readFileSync(path.join(dir, 'cairn.lock'), 'utf8')).toBe(String(process.pid));
    lock.release();
    expect(existsSync(path.join(dir, 'cairn.lock'))).toBe(false);
  });

  it('refuses while a live process holds it, naming the pid', () => {
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
    expect(readFileSync(path.join(dir, 'cairn.lock'), 'utf8')).toBe(String(process.pid));
    lock.release();
  });
});
