import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArenaMember, arenaMember, assign, start } from '../support/arena.ts';
import { ok } from '../support/campaigns.ts';
import { ownerApi } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 21 item 3, the owner's side: GET /v1/arena/runs lists the owner's own runs, newest first,
 * filtered by identity and state, a signed page at a time; cancelling ends a run and it lists so.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary JSON answers
type Run = Record<string, any>;

const runs = async (m: ArenaMember, query = '') => {
  const res = await ownerApi(server, m.ownerToken, 'GET', `/v1/arena/runs${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { runs: Run[]; next_cursor: string | null };
};
const ids = (page: { runs: Run[] }) => page.runs.map((r) => r.run_id);

describe('GET /v1/arena/runs', () => {
  it('lists the owner’s runs newest first with members, times, score and next; filters; never another owner’s', async () => {
    const m1 = await arenaMember(server);
    const m2 = await arenaMember(server, m1.ownerEmail);
    const m3 = await arenaMember(server, m1.ownerEmail);
    const stranger = await arenaMember(server);
    const theirs = await assign(server, stranger, 'cite-quotation');

    // r1: started and verified (nothing handed in: a score of 0, still signed).
    const r1 = await assign(server, m1, 'cite-quotation', { show_agent: true });
    await start(m1);
    const verified = await ok(m1, 'result_verify', { run_id: r1.run_id });
    expect(verified.state).toBe('VERIFIED');
    // r2: a TEAM run of m2 (A) and m3 (B), still assigned.
    const r2 = await assign(server, m2, 'team-handoff', { teammates: [m3.agentId], publish: false });
    // r3: m1 again, assigned.
    const r3 = await assign(server, m1, 'reconcile-sources');

    const all = await runs(m1);
    expect(ids(all)).toEqual([r3.run_id, r2.run_id, r1.run_id]);
    expect(all.next_cursor).toBeNull();
    const [l3, l2, l1] = all.runs as [Run, Run, Run];
    expect(l1).toMatchObject({
      challenge_id: 'cite-quotation',
      version: 1,
      mode: 'SOLO',
      state: 'VERIFIED',
      score: verified.score,
      max_score: verified.max_score,
      rubric: verified.rubric,
      signed_score: verified.signed_score,
      publish: true,
      show_agent: true,
      members: [
        {
          agent_id: m1.agentId,
          assignment_id: r1.assignments[0]?.assignment_id,
          role: 'A',
          started_at: expect.any(String),
        },
      ],
    });
    expect(l1.started_at).toEqual(expect.any(String));
    expect(l1.deadline).toEqual(expect.any(String));
    expect(l1.ended_at).toEqual(expect.any(String));
    expect(l1.next).toMatch(/jwks\.json/);
    expect(l2).toMatchObject({
      challenge_id: 'team-handoff',
      mode: 'TEAM',
      state: 'ASSIGNED',
      publish: false,
      show_agent: false,
      score: null,
      max_score: null,
      rubric: null,
      signed_score: null,
      started_at: null,
      deadline: null,
      ended_at: null,
      expires_at: r2.expires_at,
      members: [
        { agent_id: m2.agentId, role: 'A', started_at: null },
        { agent_id: m3.agentId, role: 'B', started_at: null },
      ],
    });
    expect(l2.next).toContain(`DELETE /v1/arena/assignments/${r2.assignments[0]?.assignment_id}`);
    expect(l3).toMatchObject({ challenge_id: 'reconcile-sources', state: 'ASSIGNED' });
    expect(Date.parse(l3.created_at)).toBeGreaterThanOrEqual(Date.parse(l2.created_at));

    // Filters: by identity (a member of a TEAM run counts), by state, both.
    expect(ids(await runs(m1, `?agent_id=${m1.agentId}`))).toEqual([r3.run_id, r1.run_id]);
    const ofM3 = await runs(m1, `?agent_id=${m3.agentId}`);
    expect(ids(ofM3)).toEqual([r2.run_id]);
    // Filtered by a member, its own assignment is the one to cancel with.
    expect(ofM3.runs[0]?.next).toContain(r2.assignments[1]?.assignment_id);
    expect(ids(await runs(m1, '?state=VERIFIED'))).toEqual([r1.run_id]);
    expect(ids(await runs(m1, `?state=ASSIGNED&agent_id=${m1.agentId}`))).toEqual([r3.run_id]);
    expect(ids(await runs(m1, '?state=EXPIRED'))).toEqual([]);

    // Another owner's runs never appear, not even when asked for by its identity.
    expect(ids(await runs(m1, `?agent_id=${stranger.agentId}`))).toEqual([]);
    expect(ids(await runs(stranger))).toEqual([theirs.run_id]);
    expect(ids(await runs(stranger, `?agent_id=${m1.agentId}`))).toEqual([]);

    // Bounds.
    for (const q of ['?limit=0', '?limit=101', '?state=DONE', '?agent_id=nope', '?other=1']) {
      const bad = await ownerApi(server, m1.ownerToken, 'GET', `/v1/arena/runs${q}`);
      expect(bad.status, q).toBe(422);
    }
  });

  it('pages with a cursor bound to the owner and the filters', async () => {
    const m1 = await arenaMember(server);
    const m2 = await arenaMember(server, m1.ownerEmail);
    const m3 = await arenaMember(server, m1.ownerEmail);
    const made = [];
    for (const m of [m1, m2, m3]) made.push((await assign(server, m, 'cite-quotation')).run_id);
    const newestFirst = [...made].reverse();

    const first = await runs(m1, '?limit=2');
    expect(ids(first)).toEqual(newestFirst.slice(0, 2));
    expect(first.next_cursor).toEqual(expect.any(String));
    const cursor = encodeURIComponent(first.next_cursor ?? '');
    const second = await runs(m1, `?limit=2&cursor=${cursor}`);
    expect(ids(second)).toEqual(newestFirst.slice(2));
    expect(second.next_cursor).toBeNull();

    // The same cursor under other filters, or from another owner, is refused.
    for (const q of [
      `?limit=2&state=ASSIGNED&cursor=${cursor}`,
      `?limit=2&agent_id=${m1.agentId}&cursor=${cursor}`,
    ]) {
      const other = await ownerApi(server, m1.ownerToken, 'GET', `/v1/arena/runs${q}`);
      expect(other.status, q).toBe(400);
      expect(other.body.error.code).toBe('CURSOR_INVALID');
    }
    const stranger = await arenaMember(server);
    const stolen = await ownerApi(
      server,
      stranger.ownerToken,
      'GET',
      `/v1/arena/runs?limit=2&cursor=${cursor}`,
    );
    expect(stolen.status).toBe(400);
    expect(stolen.body.error.code).toBe('CURSOR_INVALID');

    // Filtered pages carry their own cursors.
    const assigned = await runs(m1, '?state=ASSIGNED&limit=1');
    expect(ids(assigned)).toEqual(newestFirst.slice(0, 1));
    const more = await runs(
      m1,
      `?state=ASSIGNED&limit=1&cursor=${encodeURIComponent(assigned.next_cursor ?? '')}`,
    );
    expect(ids(more)).toEqual(newestFirst.slice(1, 2));
  });

  it('cancel moves a current run to CANCELLED for every member, and it lists so', async () => {
    const a = await arenaMember(server);
    const b = await arenaMember(server, a.ownerEmail);
    const team = await assign(server, a, 'team-handoff', { teammates: [b.agentId] });
    const solo = await arenaMember(server, a.ownerEmail);
    await assign(server, solo, 'fix-failing-program');
    await start(solo);
    const [running] = (await runs(a, `?agent_id=${solo.agentId}`)).runs;
    expect(running).toMatchObject({ state: 'RUNNING', started_at: expect.any(String) });
    expect(running?.deadline).toEqual(expect.any(String));

    // Cancelling with the teammate's assignment ends the whole run.
    const bAssignment = team.assignments.find((x) => x.agent_id === b.agentId)?.assignment_id;
    const cancelled = await ownerApi(server, a.ownerToken, 'DELETE', `/v1/arena/assignments/${bAssignment}`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const running2 = running?.members[0]?.assignment_id;
    expect((await ownerApi(server, a.ownerToken, 'DELETE', `/v1/arena/assignments/${running2}`)).status).toBe(
      200,
    );

    const listed = await runs(a, '?state=CANCELLED');
    expect(ids(listed).sort()).toEqual([team.run_id, running?.run_id].sort());
    for (const r of listed.runs) {
      expect(r.ended_at).toEqual(expect.any(String));
      expect(r.next).toMatch(/Ended without a score/);
      expect(r.next).not.toMatch(/DELETE/);
    }
    expect(ids(await runs(a, '?state=ASSIGNED'))).toEqual([]);
    expect(ids(await runs(a, '?state=RUNNING'))).toEqual([]);
    const again = await ownerApi(server, a.ownerToken, 'DELETE', `/v1/arena/assignments/${bAssignment}`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ARENA_RUN_ENDED');
  });
});
