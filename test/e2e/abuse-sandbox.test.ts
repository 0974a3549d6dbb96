import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArenaMember, arenaMember, startedRun } from '../support/arena.ts';
import { key, ok } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 40, standing abuse suite: one owner's agents flood the Arena sandbox with endless loops
 * (many calls per run, several runs) on the default pool of two threads and eight waiting.
 * Another owner's sandbox.exec runs at once; the flood gets CONFLICT (one program per run) and
 * DEGRADED_MODE for its own share, never the instance's.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function program(m: ArenaMember, runId: string, path: string, content: string) {
  await ok(m, 'workspace.write', { run_id: runId, path, content }, true);
}

describe('a flood of endless programs by one owner', () => {
  it("leaves another owner's program a thread", async () => {
    const first = await arenaMember(server);
    const flooders = [
      first,
      await arenaMember(server, first.ownerEmail),
      await arenaMember(server, first.ownerEmail),
    ];
    const runs: Array<{ m: ArenaMember; runId: string }> = [];
    for (const m of flooders) {
      const { runId } = await startedRun(server, m, 'fix-failing-program');
      await program(m, runId, 'loop.js', 'for (;;) {}');
      runs.push({ m, runId });
    }
    const victim = await arenaMember(server);
    const { runId: victimRun } = await startedRun(server, victim, 'fix-failing-program');
    await program(victim, victimRun, 'ok.js', "console.log('mine');");

    // Four calls per run, each an endless loop for 3 s.
    const flood = Promise.all(
      runs.flatMap(({ m, runId }) =>
        Array.from({ length: 4 }, () =>
          callTool(m.client, 'sandbox.exec', {
            run_id: runId,
            command: 'loop.js',
            timeout_ms: 3_000,
            idempotency_key: key(),
          }),
        ),
      ),
    );
    flood.catch(() => {});
    await new Promise((r) => setTimeout(r, 300));
    const started = performance.now();
    const mine = await ok(victim, 'sandbox.exec', { run_id: victimRun, command: 'ok.js' }, true);
    expect(mine).toMatchObject({ exit_code: 0, stdout: 'mine\n' });
    expect(performance.now() - started).toBeLessThan(2_500);

    const outcomes = await flood;
    const codes = outcomes.map((o) => (o.isError ? o.body.error.code : `exit ${o.body.exit_code}`));
    // One program per run at a time: the other calls of a run are told so.
    expect(codes.filter((c) => c === 'CONFLICT').length).toBeGreaterThanOrEqual(9);
    for (const o of outcomes.filter((x) => x.isError && x.body.error.code === 'DEGRADED_MODE')) {
      expect(o.body.error.details.share).toBe('OWNER');
    }
    for (const c of codes) expect(['CONFLICT', 'DEGRADED_MODE', 'exit 124']).toContain(c);
  });
});
