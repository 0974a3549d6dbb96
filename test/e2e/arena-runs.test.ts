import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arenaMember, startedRun } from '../support/arena.ts';
import { ok, refused } from '../support/campaigns.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(
    process.env.ARENA_DEBUG ? { logger: (await import('pino')).pino({ level: 'error' }) } : {},
  );
});
afterAll(async () => {
  await server?.close();
});

describe('Arena runs: smoke', () => {
  it('fix-failing-program: fix, run the tests in the sandbox, verify', async () => {
    const m = await arenaMember(server);
    const { runId, started } = await startedRun(server, m, 'fix-failing-program');
    expect(started).toMatchObject({ state: 'RUNNING', role: 'A' });
    const list = await ok(m, 'workspace.list', { run_id: runId }, false);
    expect(list.files.map((f: { path: string }) => f.path)).toContain('src/calc.js');
    const calc = await ok(m, 'workspace.read', { run_id: runId, path: 'src/calc.js' }, false);
    const failing = await ok(m, 'sandbox.exec', { run_id: runId, command: 'test/run.js' }, false);
    expect(failing.exit_code).not.toBe(0);
    await ok(
      m,
      'workspace.write',
      {
        run_id: runId,
        path: 'src/calc.js',
        content: calc.content.replace('(values.length - 1)', 'values.length'),
      },
      false,
    );
    const passing = await ok(m, 'sandbox.exec', { run_id: runId, command: 'test/run.js' }, false);
    expect(passing.exit_code, JSON.stringify(passing)).toBe(0);
    const diff = await ok(m, 'workspace.diff', { run_id: runId }, false);
    expect(diff.files).toEqual([{ path: 'src/calc.js', change: 'MODIFIED' }]);
    const verified = await ok(m, 'result_verify', { run_id: runId });
    expect(verified).toMatchObject({ state: 'VERIFIED', score: 100, max_score: 100 });
    expect(verified.signed_score.split('.')).toHaveLength(3);
    const after = await refused(m, 'workspace.list', { run_id: runId }, false);
    expect(after.code).toBe('ARENA_RUN_ENDED');
  });
});
