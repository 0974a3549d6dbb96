import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './test-server.ts';

/**
 * `cairn serve` as separate processes over one PostgreSQL database, started the real way
 * (bin/cairn.js), for fault tests that kill one of them.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Replica {
  url: string;
  process: ChildProcess;
  /** The tail of what it wrote, for failure messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code and signal. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `cairn serve` on PostgreSQL at `databaseUrl`, or on the embedded database (a data dir of
 * its own) when it is null; `env` adds to or overrides its environment.
 */
export async function startReplica(
  databaseUrl: string | null,
  secret: string,
  env: Record<string, string> = {},
): Promise<Replica> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-replica-'));
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['bin/cairn.js', 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl ?? undefined,
      PORT: String(port),
      HOST: '127.0.0.1',
      CAIRN_BASE_URL: url,
      CAIRN_SECRET: secret,
      CAIRN_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      CAIRN_CHECK_OUTPUTS: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, signal });
    }),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`replica exited before it was ready:\n${tail}`);
    const ok = await fetch(`${url}/health/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`replica not ready within 60 s:\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    process: child,
    output: () => tail,
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
        const result = await exited;
        clearTimeout(force);
        return result;
      }
      return exited;
    },
  };
}
