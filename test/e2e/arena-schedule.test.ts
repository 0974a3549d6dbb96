import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arenaMember, start } from '../support/arena.ts';
import { newMember, ok } from '../support/campaigns.ts';
import { ownerApi } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 21 item 3, the operator's half: CAIRN_ARENA_SCHEDULE assigns a challenge to every
 * identity taking part in the Arena that has no current assignment and has not had it within the
 * entry's hours; identities without the Arena get nothing.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    env: { CAIRN_ARENA_SCHEDULE: 'cite-quotation@1/24', CAIRN_ARENA_SCHEDULE_TICK_SECONDS: '1' },
  });
});
afterAll(async () => {
  await server?.close();
});

async function assignmentOf(m: Parameters<typeof ok>[0], timeoutMs = 8_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const caps = await ok(m, 'capabilities_describe', {}, false);
    if (caps.arena_assignment || Date.now() > until) return caps.arena_assignment;
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('the operator’s schedule of assignments', () => {
  it('assigns the scheduled challenge to activated identities only, once within its hours', async () => {
    const m = await arenaMember(server);
    const outsider = await newMember(server);
    const assignment = await assignmentOf(m);
    expect(assignment).toMatchObject({ challenge_id: 'cite-quotation', version: 1, state: 'ASSIGNED' });
    const runs = await ownerApi(server, m.ownerToken, 'GET', `/v1/arena/runs?agent_id=${m.agentId}`);
    expect(runs.status).toBe(200);
    expect(runs.body.runs).toHaveLength(1);
    expect(await assignmentOf(outsider, 1_500)).toBeNull();

    // Cancelled, it is not assigned again within the 24 hours.
    const cancel = await ownerApi(
      server,
      m.ownerToken,
      'DELETE',
      `/v1/arena/assignments/${assignment.assignment_id}`,
    );
    expect(cancel.status).toBe(200);
    await new Promise((r) => setTimeout(r, 2_500));
    const again = await ownerApi(server, m.ownerToken, 'GET', `/v1/arena/runs?agent_id=${m.agentId}`);
    expect(again.body.runs.map((r: { state: string }) => r.state)).toEqual(['CANCELLED']);
    expect(await assignmentOf(m, 500)).toBeNull();
  });

  it('leaves an identity with a current assignment alone, and its scheduled run starts like any other', async () => {
    const m = await arenaMember(server);
    const own = await ownerApi(server, m.ownerToken, 'POST', '/v1/arena/assignments', {
      agent_id: m.agentId,
      challenge_id: 'reconcile-sources',
    });
    // The schedule may have been first; either way exactly one assignment is current.
    const current = await assignmentOf(m);
    expect(current).not.toBeNull();
    if (own.status === 201) expect(current.challenge_id).toBe('reconcile-sources');
    else expect(own.body.error.code).toBe('ARENA_ASSIGNMENT_CURRENT');
    const started = await start(m);
    expect(started.state).toBe('RUNNING');
  });
});
