import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { onPostgres } from '../support/database.ts';
import { uniqueEmail } from '../support/factories.ts';
import { freePort } from '../support/test-server.ts';

// Real processes (tsx, PGlite) start slowly on a loaded two-core machine: more time than most tests.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/** Issue 15 item 1: `cairn owner token add|list`, and the token it prints working on a served Cairn. */

const BIN = path.resolve('bin/cairn.js');
let dataDir: string;

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    CAIRN_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
  if (onPostgres) base.DATABASE_URL = process.env.TEST_DATABASE_URL;
  return { ...base, ...extra };
}

function cairn(args: string[], stdin = '') {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: env() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function startServe(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
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
}

beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-owner-token-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('cairn owner token', () => {
  it('prints a token once that works on /v1 of the served Cairn; list never shows it', async () => {
    const email = uniqueEmail();
    expect((await cairn(['owner', 'add', '--email', email, '--json'], 'correct horse battery\n')).code).toBe(
      0,
    );

    const added = await cairn([
      'owner',
      'token',
      'add',
      '--email',
      email,
      '--days',
      '3',
      '--name',
      'backup job',
    ]);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const token = /^token: (cd_own_[a-z2-7]{52})$/m.exec(added.stdout)?.[1] ?? '';
    expect(token).not.toBe('');
    expect(added.stdout).toContain('This token is shown once');
    expect(added.stdout).toMatch(/^name: backup job$/m);

    const listed = await cairn(['owner', 'token', 'list', '--email', email, '--json']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(token);
    const { tokens } = JSON.parse(listed.stdout);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ name: 'backup job', status: 'ACTIVE', prefix: token.slice(0, 11) });

    const bad = await cairn(['owner', 'token', 'add', '--email', email, '--days', '400']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--days');
    const nobody = await cairn(['owner', 'token', 'add', '--email', uniqueEmail(), '--json']);
    expect(nobody.code).toBe(1);
    expect(JSON.parse(nobody.stderr).error.code).toBe('NOT_FOUND');

    const port = await freePort();
    const server = await startServe(port);
    try {
      const ok = await fetch(`http://127.0.0.1:${port}/v1/oauth/connections`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ connections: [] });
      const mcp = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(mcp.status).toBe(401);
    } finally {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
  }, 180_000);
});
