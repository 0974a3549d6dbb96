import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CAIRN_BIN, cairnCli, seedDataDir } from '../support/cairn-cli.ts';
import { onPostgres } from '../support/database.ts';
import { callTool, connectClient, uniqueEmail } from '../support/factories.ts';
import { freePort } from '../support/test-server.ts';

/** The `cairn` command as an operator runs it: a real process, on the data dir or TEST_DATABASE_URL. */

const BIN = CAIRN_BIN;
// Every test starts real processes (tsx compiles the sources, PGlite starts): 2-3 s a command
// on an idle two-core machine, several times that while the rest of the suite runs beside it,
// and a test runs a dozen or more in turn, so these tests get more time than most.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });
let dataDir: string;

const cli = cairnCli(() => dataDir);
const env = cli.env;
const cairn = cli.run;

/** Exactly one JSON object on stdout, nothing else. */
function onlyJson(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? '');
}

const startServe = cli.serve;

const email = uniqueEmail();
let agentId = '';
let projectKey = '';
let campaignId = '';

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-cli-'));
  await seedDataDir(dataDir);
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('cairn admin commands', () => {
  it('owner add reads the password from stdin and prints {"owner_id"}', async () => {
    const res = await cairn(['owner', 'add', '--email', email, '--json'], {
      stdin: 'correct horse battery\n',
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(onlyJson(res.stdout)).toEqual({ owner_id: expect.stringMatching(/^own_[0-9A-Z]{26}$/) });
    const again = await cairn(['owner', 'add', '--email', email.toUpperCase(), '--json'], {
      stdin: 'correct horse battery\n',
    });
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr).error.code).toBe('CONFLICT');
  });

  it('owner add --reviewer names the new account an Arena reviewer; owner reviewer takes it back', async () => {
    const reviewer = uniqueEmail();
    // The bare flag before another: --reviewer takes no value, so --email is still read as a flag.
    const added = await cairn(['owner', 'add', '--reviewer', '--email', reviewer, '--json'], {
      stdin: 'correct horse battery\n',
    });
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const ownerId = onlyJson(added.stdout).owner_id;
    expect(onlyJson(added.stdout)).toEqual({
      owner_id: expect.stringMatching(/^own_/),
      arena_reviewer: true,
    });
    const off = await cairn(['owner', 'reviewer', '--email', reviewer, '--enabled', 'false', '--json']);
    expect(off.code).toBe(0);
    expect(onlyJson(off.stdout)).toMatchObject({ owner_id: ownerId, arena_reviewer: false, changed: true });
    const bad = await cairn(['owner', 'add', '--email', uniqueEmail(), '--reviewer', 'yes'], {
      stdin: 'correct horse battery\n',
    });
    expect(bad.code).toBe(2);
  });

  it('agent add, key add and agent mode print exactly their JSON objects', async () => {
    const agent = await cairn([
      'agent',
      'add',
      '--owner',
      email,
      '--name',
      'CLI agent',
      '--runtime',
      'cursor',
      '--json',
    ]);
    expect(agent.code).toBe(0);
    agentId = String(onlyJson(agent.stdout).agent_id);
    expect(agentId).toMatch(/^agt_[0-9A-Z]{26}$/);

    const key = await cairn(['key', 'add', '--agent', agentId, '--days', '2', '--json']);
    expect(key.code).toBe(0);
    const issued = onlyJson(key.stdout);
    expect(Object.keys(issued).sort()).toEqual(['expires_at', 'project_key']);
    projectKey = String(issued.project_key);
    expect(projectKey).toMatch(/^cd_prj_[a-z2-7]{52}$/);
    const days = (Date.parse(String(issued.expires_at)) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(1.9);
    expect(days).toBeLessThan(2.1);

    const mode = await cairn(['agent', 'mode', '--agent', agentId, '--mode', 'READ', '--json']);
    expect(mode.code).toBe(0);
    expect(onlyJson(mode.stdout)).toEqual({
      agent_id: agentId,
      mode: 'READ',
      status: 'ACTIVE',
      active: true,
    });
  });

  it('explains bad input and exits 2', async () => {
    const badAgent = await cairn(['key', 'add', '--agent', 'nope', '--json']);
    expect(badAgent.code).toBe(2);
    expect(badAgent.stderr).toContain('--agent: must be an agent id');
    const badDays = await cairn(['key', 'add', '--agent', agentId, '--days', '999']);
    expect(badDays.code).toBe(2);
    expect(badDays.stderr).toContain('--days');
    const shortPassword = await cairn(['owner', 'add', '--email', uniqueEmail()], { stdin: 'short\n' });
    expect(shortPassword.code).toBe(2);
    expect(shortPassword.stderr).toMatch(/password .* 10-1024 characters/);
    const unknown = await cairn(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command');
    const missingOwner = await cairn(['agent', 'add', '--owner', uniqueEmail(), '--name', 'x', '--json']);
    expect(missingOwner.code).toBe(1);
    expect(JSON.parse(missingOwner.stderr).error.code).toBe('NOT_FOUND');
  });

  it('refuses to start with one clear message per bad variable', async () => {
    const res = await cairn(['serve'], { env: { PORT: 'abc', LOG_LEVEL: 'loud' } });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/Invalid configuration:\n {2}- PORT: .*\n {2}- LOG_LEVEL: /);
  });

  it('refuses to start with a mail key or certificate it cannot use', async () => {
    const postal = await cairn(['serve'], {
      env: { CAIRN_POSTAL_PUBLIC_KEY: 'p=notbase64!!'.padEnd(48, 'x'), CAIRN_POSTAL_API_KEY: 'a'.repeat(24) },
    });
    expect(postal.code).toBe(1);
    expect(postal.stderr).toMatch(/Invalid configuration:\n {2}- CAIRN_POSTAL_PUBLIC_KEY: the Postal key/);
    const tls = await cairn(['serve'], {
      env: {
        CAIRN_SMTP_PORT: '2525',
        CAIRN_SMTP_TLS_KEY_FILE: '/nonexistent/key.pem',
        CAIRN_SMTP_TLS_CERT_FILE: '/nonexistent/cert.pem',
      },
    });
    expect(tls.code).toBe(1);
    expect(tls.stderr).toMatch(/- CAIRN_SMTP_TLS_KEY_FILE: cannot read \/nonexistent\/key\.pem \(ENOENT\)/);
  });

  it('migrate applies migrations and says so, on an empty data dir too (a first run)', async () => {
    const res = await cairn(['migrate', '--json']);
    expect(res.code).toBe(0);
    expect(onlyJson(res.stdout)).toMatchObject({ migrated: true });
    // The other tests start from the migrated template; this is the one first run from nothing
    // (embedded: on PostgreSQL the command above already migrated the one database).
    if (onPostgres) return;
    const empty = mkdtempSync(path.join(os.tmpdir(), 'cairn-cli-first-'));
    try {
      const first = await cairn(['migrate', '--json'], { env: { CAIRN_DATA_DIR: empty } });
      expect(first.code).toBe(0);
      expect(onlyJson(first.stdout)).toMatchObject({ migrated: true });
      expect(existsSync(path.join(empty, 'pg'))).toBe(true);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('cairn key revoke and agent revoke', () => {
  it('revoke what they name, and explain what they cannot find', async () => {
    const agent = await cairn(['agent', 'add', '--owner', email, '--name', 'Doomed', '--json']);
    const doomed = String(onlyJson(agent.stdout).agent_id);
    const key = String(
      onlyJson((await cairn(['key', 'add', '--agent', doomed, '--json'])).stdout).project_key,
    );
    const revoked = await cairn(['key', 'revoke', '--json'], { stdin: `${key}\n` });
    expect(revoked.code).toBe(0);
    expect(onlyJson(revoked.stdout)).toEqual({
      key_id: expect.stringMatching(/^key_/),
      revoked_at: expect.any(String),
    });
    const again = await cairn(['key', 'revoke', '--json'], { stdin: `${key}\n` });
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr).error.code).toBe('NOT_FOUND');
    // A bootstrap token for it, printed once (the console's "Replace bootstrap token" too).
    const boot = await cairn(['agent', 'bootstrap', '--agent', doomed, '--days', '2', '--json']);
    expect(boot.code).toBe(0);
    expect(onlyJson(boot.stdout)).toEqual({
      agent_id: doomed,
      bootstrap_token: expect.stringMatching(/^cd_boot_/),
      expires_at: expect.any(String),
    });
    const gone = await cairn(['agent', 'revoke', '--agent', doomed, '--json']);
    expect(onlyJson(gone.stdout)).toEqual({ agent_id: doomed, status: 'REVOKED' });
    const noBoot = await cairn(['agent', 'bootstrap', '--agent', doomed, '--json']);
    expect(noBoot.code).toBe(1);
    expect(JSON.parse(noBoot.stderr).error.code).toBe('CONFLICT');
    const noKeys = await cairn(['key', 'add', '--agent', doomed, '--json']);
    expect(noKeys.code).toBe(1);
    expect(JSON.parse(noKeys.stderr).error.message).toMatch(/revoked/);
  }, 180_000); // Eight CLI processes, each opening the embedded database: generous on a loaded machine.
});

describe('cairn serve with the admin commands beside it', () => {
  it('serves the agent it made, and the admin commands behave as the database allows', async () => {
    const port = await freePort();
    const server = await startServe(port);
    try {
      const client = await connectClient(`http://127.0.0.1:${port}`, projectKey);
      const whoami = await callTool(client, 'identity_whoami');
      expect(whoami.body).toMatchObject({ agent_id: agentId, mode: 'READ', active: true });
      const created = await callTool(client, 'campaign_create', {
        title: 'Closed from the CLI',
        objective: 'A campaign the operator closes.',
        allow_agent_publish: false,
        visibility: 'SHARED',
        participation: 'OPEN',
        idempotency_key: 'cli-campaign',
      });
      campaignId = String(created.body.campaign_id);

      const mode = await cairn(['agent', 'mode', '--agent', agentId, '--mode', 'NONE', '--json']);
      if (onPostgres) {
        // PostgreSQL: administer while the server runs, and the server sees the change at once.
        expect(mode.code).toBe(0);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(['capabilities_describe', 'identity_whoami']);
      } else {
        // Embedded: one process at a time, with a message that says what to do.
        expect(mode.code).toBe(1);
        expect(mode.stderr).toMatch(/in use by another Cairn process \(pid \d+\)\. Stop that process first/);
      }
      await client.close();

      // Revoking the key works beside a running server on PostgreSQL; the next request then fails.
      if (onPostgres) {
        const revoked = await cairn(['key', 'revoke', '--json'], { stdin: `${projectKey}\n` });
        expect(revoked.code).toBe(0);
        expect(onlyJson(revoked.stdout)).toMatchObject({ key_id: expect.stringMatching(/^key_/) });
        const after = await fetch(`http://127.0.0.1:${port}/mcp`, {
          method: 'POST',
          headers: { authorization: `Bearer ${projectKey}`, 'content-type': 'application/json' },
          body: '{}',
        });
        expect(after.status).toBe(401);
      }
    } finally {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    expect(existsSync(path.join(dataDir, 'cairn.lock'))).toBe(false);
  });

  it('campaign stop, resume and close act for the owner of record; agent suspend and unsuspend keep the mode', async () => {
    const stopped = await cairn([
      'campaign',
      'stop',
      '--campaign',
      campaignId,
      '--reason',
      'wrap up',
      '--json',
    ]);
    expect(stopped.code).toBe(0);
    expect(onlyJson(stopped.stdout)).toMatchObject({
      status: 'STOPPING',
      stop_reason: 'wrap up',
      already_stopping: false,
    });
    const resumed = await cairn(['campaign', 'resume', '--campaign', campaignId, '--json']);
    expect(onlyJson(resumed.stdout)).toMatchObject({ status: 'ACTIVE', already_active: false });
    await cairn(['campaign', 'stop', '--campaign', campaignId, '--json']);
    const closed = await cairn(['campaign', 'close', '--campaign', campaignId, '--reason', 'done', '--json']);
    expect(closed.code).toBe(0);
    expect(onlyJson(closed.stdout)).toMatchObject({
      campaign_id: campaignId,
      status: 'CLOSED',
      close_reason: 'done',
      already_closed: false,
    });
    const again = await cairn(['campaign', 'close', '--campaign', campaignId, '--json']);
    expect(onlyJson(again.stdout)).toMatchObject({ status: 'CLOSED', already_closed: true });
    const missing = await cairn(['campaign', 'close', '--campaign', 'cmp_NOPE', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr).error.code).toBe('NOT_FOUND');

    const read = await cairn(['agent', 'mode', '--agent', agentId, '--mode', 'READ', '--json']);
    expect(read.code).toBe(0);
    const suspended = await cairn(['agent', 'suspend', '--agent', agentId, '--reason', 'audit', '--json']);
    expect(onlyJson(suspended.stdout)).toEqual({
      agent_id: agentId,
      status: 'SUSPENDED',
      reason: 'audit',
      mode: 'READ',
      active: false,
    });
    const lifted = await cairn(['agent', 'unsuspend', '--agent', agentId, '--json']);
    expect(onlyJson(lifted.stdout)).toEqual({
      agent_id: agentId,
      status: 'ACTIVE',
      mode: 'READ',
      active: true,
    });
    const twice = await cairn(['agent', 'unsuspend', '--agent', agentId, '--json']);
    expect(twice.code).toBe(1);
    expect(JSON.parse(twice.stderr).error.code).toBe('CONFLICT');
  });
});

/** Runs `cairn serve` on a fresh data dir until /health answers three times, then stops it; its stdout. */
async function firstRun(format: 'pretty' | 'json'): Promise<string> {
  const port = await freePort();
  const fresh = mkdtempSync(path.join(os.tmpdir(), 'cairn-first-'));
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: env({ PORT: String(port), CAIRN_DATA_DIR: fresh, LOG_LEVEL: 'info', CAIRN_LOG_FORMAT: format }),
  });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  try {
    const deadline = Date.now() + 90_000;
    let probes = 0;
    while (probes < 3 && Date.now() < deadline) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) probes++;
      else await new Promise((r) => setTimeout(r, 200));
    }
    expect(probes).toBe(3);
    // The banner follows the listening line; give it a moment to reach the pipe.
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(fresh, { recursive: true, force: true });
  }
  return stdout;
}

describe('a first run that reads like one (issue 15 item 3)', () => {
  it('at a terminal: readable lines and a banner saying where the console is and how to stop', async () => {
    const out = await firstRun('pretty');
    expect(out).toContain('Cairn is running at http://127.0.0.1:');
    expect(out).toMatch(/Console {2}http:\/\/127\.0\.0\.1:\d+\/console {2}\(/);
    if (!onPostgres) expect(out).toContain('create the first account there: it becomes the owner');
    expect(out).toContain('Stop     Ctrl-C');
    expect(out).toContain('Cairn listening on');
    // No JSON lines, and the health probes are not logged at info.
    expect(out.split('\n').filter((l) => l.trim().startsWith('{'))).toEqual([]);
    expect(out).not.toContain('/health');
  });

  it('elsewhere (or CAIRN_LOG_FORMAT=json): JSON lines only, probes at debug', async () => {
    const out = await firstRun('json');
    const lines = out.trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(out).toContain('Cairn listening on');
    expect(out).not.toContain('Cairn is running at');
    expect(out).not.toContain('/health');
  });
});
