import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cairnCli, seedDataDir } from '../support/cairn-cli.ts';
import { uniqueEmail } from '../support/factories.ts';
import { freePort } from '../support/test-server.ts';

// Real processes (tsx, PGlite) start slowly on a loaded two-core machine: more time than most tests.
// Each command is a process of its own (2-3 s to start on an idle 2-core machine, several times
// that while the rest of the suite runs beside it); a test runs a dozen or more in turn.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

/** Issue 15 item 1: `cairn owner token add|list`, and the token it prints working on a served Cairn. */

let dataDir: string;
const cli = cairnCli(() => dataDir);
const cairn = (args: string[], stdin = '') => cli.run(args, { stdin });
const startServe = cli.serve;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-owner-token-'));
  await seedDataDir(dataDir);
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

    // Revoked from the command line (the embedded database is the server's while it runs), it
    // fails on the served Cairn from then on.
    const revoked = await cairn([
      'owner',
      'token',
      'revoke',
      '--email',
      email,
      '--id',
      tokens[0].token_id,
      '--json',
    ]);
    expect(revoked.stderr).toBe('');
    expect(JSON.parse(revoked.stdout).token).toMatchObject({
      token_id: tokens[0].token_id,
      status: 'REVOKED',
    });
    const unknown = await cairn(['owner', 'token', 'revoke', '--email', email, '--id', 'otk_NOPE', '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).error.code).toBe('NOT_FOUND');
    const again = await startServe(port);
    try {
      const after = await fetch(`http://127.0.0.1:${port}/v1/oauth/connections`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(after.status).toBe(401);
    } finally {
      const exited = new Promise((r) => again.once('exit', r));
      again.kill('SIGTERM');
      await exited;
    }
  }, 180_000);
});
