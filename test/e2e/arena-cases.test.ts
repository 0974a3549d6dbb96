import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { type ArenaMember, arenaMember, startedRun } from '../support/arena.ts';
import { ok, refused } from '../support/campaigns.ts';
import { uniqueEmail } from '../support/factories.ts';
import { ownerApi } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 22 items 1-3 and 7: Arena reports and appeals are private cases (filer and reviewers
 * only), decided by reviewers the operator named, never by an agent; an appeal waits alone per
 * decision and is decided by another reviewer; intake is ten an hour (fake clock).
 */

const clock = new FakeClock(new Date());
let server: TestServer;
let filer: ArenaMember;
let runId: string;
let reviewerA: string;
let reviewerB: string;

async function reviewer(): Promise<string> {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, 'correct horse battery staple');
  await server.app.services.identity.setArenaReviewer(email, true);
  return (await server.app.services.identity.addOwnerToken(email, 'tests', 1)).token;
}

beforeAll(async () => {
  server = await startTestServer({ clock });
  filer = await arenaMember(server);
  ({ runId } = await startedRun(server, filer, 'cite-quotation'));
  reviewerA = await reviewer();
  reviewerB = await reviewer();
});
afterAll(async () => {
  await server?.close();
});

const report = (m: ArenaMember, extra: Record<string, unknown> = {}) =>
  ok(m, 'arena_report', {
    run_id: runId,
    subject_type: 'RUN',
    statement: 'The lab answered slowly.',
    ...extra,
  });

describe('Arena reports and appeals', () => {
  it('opens a private case: the filer and reviewers see it, nobody else; filing lifts no sanction', async () => {
    const handed = await ok(filer, 'artifact_submit', {
      run_id: runId,
      name: 'citation.json',
      content: '{}',
    });
    const filed = await report(filer, {
      subject_type: 'CHALLENGE_VERSION',
      evidence_ids: [handed.artifact_id],
    });
    expect(filed).toMatchObject({
      status: 'OPEN',
      subject_type: 'CHALLENGE_VERSION',
      challenge_id: 'cite-quotation',
    });
    expect(filed.note).toContain('lifts no sanction');
    const mine = await ok(filer, 'arena_reports', {}, false);
    expect(mine.cases.map((c: { case_id: string }) => c.case_id)).toContain(filed.case_id);
    expect(mine.next).toContain('arena_appeal');

    const sameOwner = await arenaMember(server, filer.ownerEmail);
    expect((await ok(sameOwner, 'arena_reports', {}, false)).cases).toEqual([]);
    const stranger = await arenaMember(server);
    expect((await ok(stranger, 'arena_reports', {}, false)).cases).toEqual([]);
    expect(
      (await refused(stranger, 'arena_report', { run_id: runId, subject_type: 'RUN', statement: 'x' })).code,
    ).toBe('NOT_FOUND');
    const theirs = await refused(stranger, 'arena_appeal', {
      decision_id: filed.case_id,
      statement: 'Unfair.',
    });
    const none = await refused(stranger, 'arena_appeal', {
      decision_id: 'case_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      statement: 'Unfair.',
    });
    expect(theirs.code).toBe('NOT_FOUND');
    expect(theirs.message).toBe(none.message);

    const queue = await ownerApi(server, reviewerA, 'GET', '/v1/arena/cases?limit=100');
    expect(queue.status).toBe(200);
    expect(queue.body.cases.map((c: { case_id: string }) => c.case_id)).toContain(filed.case_id);
    const notReviewer = await ownerApi(server, filer.ownerToken, 'GET', '/v1/arena/cases');
    expect(notReviewer.status).toBe(403);
    expect(notReviewer.body.error.code).toBe('ARENA_NOT_REVIEWER');
    // No agent token decides anything.
    const asAgent = await ownerApi(server, filer.key, 'POST', `/v1/arena/cases/${filed.case_id}/decision`, {
      outcome: 'UPHELD',
      reasons: 'self-serve',
    });
    expect(asAgent.status).toBe(401);
  });

  it('refuses evidence that is not of the run', async () => {
    const bad = await refused(filer, 'arena_report', {
      run_id: runId,
      subject_type: 'RUN',
      statement: 'See this.',
      evidence_ids: ['art_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
    });
    expect(bad).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknown_evidence_ids: ['art_01ARZ3NDEKTSV4RRFFQ69G5FAV'] },
    });
  });

  it('is decided by a reviewer; one pending appeal per decision, decided by another reviewer', async () => {
    const filed = await report(filer);
    const early = await refused(filer, 'arena_appeal', {
      decision_id: filed.case_id,
      statement: 'Too soon.',
    });
    expect(early.code).toBe('CONFLICT');
    const decided = await ownerApi(server, reviewerA, 'POST', `/v1/arena/cases/${filed.case_id}/decision`, {
      outcome: 'DISMISSED',
      reasons: 'The lab answered within its limits.',
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    const seen = (await ok(filer, 'arena_reports', { status: 'RESOLVED' }, false)).cases.find(
      (c: { case_id: string }) => c.case_id === filed.case_id,
    );
    expect(seen.decision).toMatchObject({
      decision_id: filed.case_id,
      outcome: 'DISMISSED',
      reasons: 'The lab answered within its limits.',
    });
    const twice = await ownerApi(server, reviewerB, 'POST', `/v1/arena/cases/${filed.case_id}/decision`, {
      outcome: 'UPHELD',
      reasons: 'again',
    });
    expect(twice.status).toBe(409);

    const appeal = await ok(filer, 'arena_appeal', {
      decision_id: filed.case_id,
      statement: 'It timed out twice.',
    });
    expect(appeal).toMatchObject({ kind: 'APPEAL', appeal_of: filed.case_id, status: 'OPEN' });
    const second = await refused(filer, 'arena_appeal', {
      decision_id: filed.case_id,
      statement: 'And again.',
    });
    expect(second).toMatchObject({ code: 'CONFLICT', details: { pending_case_id: appeal.case_id } });
    const queue = await ownerApi(server, reviewerA, 'GET', '/v1/arena/cases?limit=100');
    expect(
      queue.body.cases.find((c: { case_id: string }) => c.case_id === appeal.case_id).you_may_decide,
    ).toBe(false);
    const same = await ownerApi(server, reviewerA, 'POST', `/v1/arena/cases/${appeal.case_id}/decision`, {
      outcome: 'DISMISSED',
      reasons: 'Still fine.',
    });
    expect(same.status).toBe(403);
    expect(same.body.error.code).toBe('ARENA_SAME_REVIEWER');
    const other = await ownerApi(server, reviewerB, 'POST', `/v1/arena/cases/${appeal.case_id}/decision`, {
      outcome: 'UPHELD',
      reasons: 'The logs show two time-outs.',
    });
    expect(other.status).toBe(200);
    expect(other.body).toMatchObject({ status: 'RESOLVED', decision: { outcome: 'UPHELD' } });
  });

  it('is never decided by a reviewer whose own identity filed it or whose run it is about', async () => {
    // The filer's owner is a reviewer too: its decision would not be independent.
    const owner = await arenaMember(server);
    const { runId: ownRun } = await startedRun(server, owner, 'cite-quotation');
    await server.app.services.identity.setArenaReviewer(owner.ownerEmail, true);
    const token = (await server.app.services.identity.addOwnerToken(owner.ownerEmail, 'tests', 1)).token;
    const filed = await ok(owner, 'arena_report', {
      run_id: ownRun,
      subject_type: 'RUN',
      statement: 'Our own run misbehaved.',
    });
    const queue = await ownerApi(server, token, 'GET', '/v1/arena/cases?limit=100');
    const listed = queue.body.cases.find((c: { case_id: string }) => c.case_id === filed.case_id);
    expect(listed.you_may_decide).toBe(false);
    const own = await ownerApi(server, token, 'POST', `/v1/arena/cases/${filed.case_id}/decision`, {
      outcome: 'UPHELD',
      reasons: 'Mine, so upheld.',
    });
    expect([own.status, own.body.error.code]).toEqual([403, 'ARENA_SAME_REVIEWER']);
    expect(own.body.error.details.tie).toBe('one of your identities filed it');
    const independent = await ownerApi(
      server,
      reviewerB,
      'POST',
      `/v1/arena/cases/${filed.case_id}/decision`,
      {
        outcome: 'DISMISSED',
        reasons: 'Within limits.',
      },
    );
    expect(independent.status).toBe(200);
  });

  it('takes ten reports or appeals an hour, then names when the next is allowed (fake clock)', async () => {
    const m = await arenaMember(server);
    const run = await startedRun(server, m, 'reconcile-sources');
    for (let i = 0; i < 10; i++) {
      await ok(m, 'arena_report', { run_id: run.runId, subject_type: 'RUN', statement: `Report ${i}` });
      clock.advance(1_000);
    }
    const over = await refused(m, 'arena_report', {
      run_id: run.runId,
      subject_type: 'RUN',
      statement: 'One more',
    });
    expect(over.code).toBe('RATE_LIMITED');
    expect(Date.parse(String(over.details.next_allowed_at))).toBeGreaterThan(clock.now().getTime());
    clock.advance(60 * 60 * 1000);
    await ok(m, 'arena_report', { run_id: run.runId, subject_type: 'RUN', statement: 'After the hour' });
  });
});
