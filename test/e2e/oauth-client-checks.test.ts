import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// The reporter is run for real, by a child vitest over a fixture file, then its output is
// served by a real server: the path CI's results take to /v1/public/oauth-client-checks.
let server: TestServer;
const dir = mkdtempSync(path.join(tmpdir(), 'cairn-oauth-checks-'));
const file = path.join(dir, 'checks.json');

beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_OAUTH_CHECKS_FILE: file } });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const checks = async () => {
  const res = await fetch(`${server.url}/v1/public/oauth-client-checks`);
  expect(res.status).toBe(200);
  return res.json();
};

function runReporter(env: Record<string, string>) {
  return spawnSync(
    process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/fixtures/oauth-checks/vitest.config.ts'],
    { env: { ...process.env, TEST_DATABASE_URL: '', ...env }, encoding: 'utf8', timeout: 60_000 },
  );
}

describe('GET /v1/public/oauth-client-checks', () => {
  it('says no run is recorded, and how to record one, before CI has written results', async () => {
    const doc = await checks();
    expect(doc).toMatchObject({ status: 'NOT_RECORDED', checks: [] });
    expect(doc.next).toContain('CAIRN_OAUTH_CHECKS_OUT');
  });

  it('serves what the reporter wrote: a dated result per client and flow, failures included', async () => {
    const run = runReporter({ CAIRN_OAUTH_CHECKS_OUT: file });
    expect(run.status).toBe(1); // the fixture has a failing test on purpose
    const doc = await checks();
    expect(doc.status).toBe('RECORDED');
    const oauth4webapi = JSON.parse(readFileSync('node_modules/oauth4webapi/package.json', 'utf8')).version;
    const sdk = JSON.parse(
      readFileSync('node_modules/@modelcontextprotocol/sdk/package.json', 'utf8'),
    ).version;
    const byFlow = Object.fromEntries(doc.checks.map((c: { flow: string }) => [c.flow, c]));
    expect(Object.keys(byFlow).sort()).toEqual([
      'sample flow that fails',
      'sample flow that is skipped',
      'sample flow that passes',
    ]);
    expect(byFlow['sample flow that passes']).toMatchObject({
      client: 'oauth4webapi',
      client_version: oauth4webapi,
      database: 'pglite',
      result: 'PASSED',
      tests: 2,
      failed: 0,
    });
    expect(byFlow['sample flow that fails']).toMatchObject({
      client: 'fetch',
      result: 'FAILED',
      tests: 2,
      failed: 1,
    });
    expect(byFlow['sample flow that fails'].client_version).toContain(process.version);
    expect(byFlow['sample flow that is skipped']).toMatchObject({
      client_version: sdk,
      result: 'SKIPPED',
      tests: 0,
    });
    expect(Date.parse(doc.checked_at)).toBeGreaterThan(Date.now() - 120_000);
    expect(doc.cairn_version).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version);
  });

  it('keeps the other database leg and replaces its own on the next run', async () => {
    const before = JSON.parse(readFileSync(file, 'utf8'));
    const pgLeg = before.checks.map((c: object) => ({ ...c, database: 'postgresql' }));
    writeFileSync(file, JSON.stringify({ ...before, checks: [...before.checks, ...pgLeg] }));
    runReporter({ CAIRN_OAUTH_CHECKS_OUT: file });
    const doc = await checks();
    expect(doc.checks).toHaveLength(6);
    expect(doc.checks.filter((c: { database: string }) => c.database === 'postgresql')).toHaveLength(3);
  });

  it('writes nothing when CAIRN_OAUTH_CHECKS_OUT is not set (a plain npm test)', () => {
    // The file holds run times to the millisecond, so any rewrite would change it.
    const before = readFileSync(file, 'utf8');
    const run = runReporter({ CAIRN_OAUTH_CHECKS_OUT: '' });
    expect(run.status).toBe(1);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('refuses to serve a file that is not the results format', async () => {
    writeFileSync(file, JSON.stringify({ format: 1, checks: [{ client: 'x' }] }));
    expect(await checks()).toMatchObject({
      status: 'NOT_RECORDED',
      reason: expect.stringContaining('shape'),
    });
    writeFileSync(file, 'not json');
    expect(await checks()).toMatchObject({ status: 'NOT_RECORDED', reason: expect.stringContaining('JSON') });
  });

  it('is linked from /guide and /llms.txt', async () => {
    for (const doc of ['/guide', '/llms.txt']) {
      expect(await (await fetch(`${server.url}${doc}`)).text()).toContain('/v1/public/oauth-client-checks');
    }
  });
});
