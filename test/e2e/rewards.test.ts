import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  campaignWith,
  conditions,
  key,
  type Member,
  newMember,
  ok,
  publishTask,
  refused,
} from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { ARTICLE_QUOTE, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { balance, credit, expectBooksBalanced, ownerApi, ownerTokenOf } from '../support/rewards.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Issue 17: paid tasks — escrow, release by owner approval, rework, refund, the paid-quote rule. */

let site: FixtureSite;
let server: TestServer;
beforeAll(async () => {
  site = await startFixtureSite();
  // A 10% platform fee, so every scenario also proves the fee is taken once, at funding.
  server = await startTestServer({
    env: { ...site.env, CAIRN_PLATFORM_FEE_PCT: '10', CAIRN_OPERATOR_EMAILS: OPERATOR },
  });
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});
// Every scenario must leave the books balanced: `cairn rewards check` after each one.
afterEach(async () => {
  if (server) await expectBooksBalanced(server);
});

/** The operator of this test server (the PostgreSQL test database keeps owners between runs). */
const OPERATOR = `operator-${process.pid}-${Date.now()}@example.org`;

const summary = `The article states "${ARTICLE_QUOTE}" which answers the question.`;

async function readUnder(m: Member, taskId: string) {
  const res = await callTool(m.client, 'fetch_text', {
    url: `${site.origin}/article`,
    declared_purpose: 'Checking facts for the paid task.',
    task_id: taskId,
  });
  expect(res.isError, JSON.stringify(res.body)).toBe(false);
  return res.body.evidence_id as string;
}

/** Claims, reads under the lease and completes: answers the task_complete body. */
async function work(m: Member, taskId: string, evidence?: string) {
  const claimed = await ok(m, 'task_claim', { task_id: taskId });
  const evidenceId = evidence ?? (await readUnder(m, taskId));
  return callTool(m.client, 'task_complete', {
    task_id: taskId,
    lease_id: claimed.lease.lease_id,
    evidence_ids: [evidenceId],
    claimed_outcome: 'COMPLETE',
    summary,
    idempotency_key: key(),
  });
}

/** A coordinator whose owner holds `points`, a worker of another owner, and their campaign. */
async function paidCampaign(points: number, settings: Record<string, unknown> = {}) {
  const coordinator = await newMember(server);
  const worker = await newMember(server);
  const campaignId = await campaignWith(coordinator, [worker], settings);
  if (points > 0) await credit(server, coordinator, 'POINTS', points);
  return { coordinator, worker, campaignId, token: await ownerTokenOf(server, coordinator) };
}

describe('the full paid path', () => {
  it('escrows at publishing, asks the owner on release, pays the worker’s owner once on approval', async () => {
    const { coordinator, worker, campaignId, token } = await paidCampaign(1_000);
    const published = await ok(coordinator, 'task_publish', {
      campaign_id: campaignId,
      title: 'Paid fact',
      objective: 'Find one verifiable fact.',
      acceptance: 'A quotation that matches a recorded source.',
      conditions: conditions(),
      reward_points: 200,
    });
    const taskId = published.task_id as string;
    // 200 to escrow and a 10% fee (20) to the platform, at once.
    expect(published.reward).toMatchObject({
      reward_points: 200,
      status: 'ESCROWED',
      platform_fee: { minor_units: 20 },
    });
    expect(await balance(server, coordinator, 'POINTS')).toBe(780);

    const done = await work(worker, taskId);
    expect(done.body.task_status, JSON.stringify(done.body)).toBe('VERIFIED');
    expect(done.body.checks.map((c: { check: string }) => c.check)).toContain('PAID_QUOTES_OWN_READS');
    // The next move of a verified paid result is to ask for the reward.
    expect(done.body.next_steps[0]).toMatchObject({
      tool: 'reward_release',
      arguments: { task_id: taskId, action: 'RELEASE' },
    });

    const asked = await ok(worker, 'reward_release', { task_id: taskId, action: 'RELEASE' });
    expect(asked).toMatchObject({
      status: 'AWAITING_OWNER_APPROVAL',
      paid: false,
      approval_id: expect.stringMatching(/^apr_/),
      approval_url: expect.stringContaining(`/console/rewards/approvals/${asked.approval_id}`),
    });
    // Asking pays nothing.
    expect(await balance(server, worker, 'POINTS')).toBe(0);
    const pending = await ok(worker, 'task_get', { task_id: taskId }, false);
    expect(pending.reward).toMatchObject({ status: 'RELEASE_REQUESTED', approval_id: asked.approval_id });

    const listed = await ownerApi(server, token, 'GET', '/v1/rewards/approvals');
    expect(listed.body.approvals.map((a: { approval_id: string }) => a.approval_id)).toEqual([
      asked.approval_id,
    ]);
    const detail = await ownerApi(server, token, 'GET', `/v1/rewards/approvals/${asked.approval_id}`);
    expect(detail.body.submission.matched_quotes[0].quote).toBe(ARTICLE_QUOTE);
    expect(detail.body.submission.unmatched_quotes).toEqual([]);

    const approved = await ownerApi(
      server,
      token,
      'POST',
      `/v1/rewards/approvals/${asked.approval_id}/decision`,
      {
        action: 'approve',
      },
    );
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ status: 'APPROVED', paid: { minor_units: 200 } });
    expect(await balance(server, worker, 'POINTS')).toBe(200);

    // A second approval, and a return after it, move nothing.
    const again = await ownerApi(
      server,
      token,
      'POST',
      `/v1/rewards/approvals/${asked.approval_id}/decision`,
      {
        action: 'approve',
      },
    );
    expect([again.status, again.body.error.code]).toEqual([409, 'APPROVAL_NOT_PENDING']);
    const late = await ownerApi(
      server,
      token,
      'POST',
      `/v1/rewards/approvals/${asked.approval_id}/decision`,
      {
        action: 'return',
        reason: 'too late',
      },
    );
    expect(late.body.error.code).toBe('APPROVAL_NOT_PENDING');
    expect(await balance(server, worker, 'POINTS')).toBe(200);
    expect(await balance(server, coordinator, 'POINTS')).toBe(780);
    // A paid result is not sent back to rework nobody would pay for.
    const reworkAfterPay = await refused(coordinator, 'reward_release', {
      task_id: taskId,
      action: 'RETURN',
      reason: 'more',
    });
    expect(reworkAfterPay).toMatchObject({
      code: 'REWARD_NOT_RELEASABLE',
      details: { reward_status: 'PAID' },
    });

    const paid = await ok(worker, 'task_get', { task_id: taskId }, false);
    expect(paid.reward).toMatchObject({ status: 'PAID', paid_to_agent_id: worker.agentId });
    const events = await ok(
      worker,
      'events_watch',
      { campaign_id: campaignId, limit: 200, wait_seconds: 1 },
      false,
    );
    const kinds = events.events.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(['REWARD_ESCROWED', 'REWARD_RELEASE_REQUESTED', 'REWARD_PAID']),
    );

    // The worker's owner sees the payout among its postings.
    const workerToken = await ownerTokenOf(server, worker);
    const postings = await ownerApi(server, workerToken, 'GET', '/v1/rewards/postings');
    expect(postings.body.postings[0]).toMatchObject({
      kind: 'RELEASE',
      minor_units: 200,
      direction: 'IN',
      task_id: taskId,
    });
  });

  it('an agent token can never approve, and a stranger cannot ask for release', async () => {
    const { coordinator, worker, campaignId } = await paidCampaign(500);
    const taskId = await publishTask(coordinator, campaignId, { reward_points: 100 });
    expect((await work(worker, taskId)).body.task_status).toBe('VERIFIED');
    const stranger = await newMember(server);
    await ok(stranger, 'campaign_join', { campaign_id: campaignId });
    expect((await refused(stranger, 'reward_release', { task_id: taskId, action: 'RELEASE' })).code).toBe(
      'ROLE_REQUIRED',
    );
    const asked = await ok(worker, 'reward_release', { task_id: taskId, action: 'RELEASE' });
    const byAgent = await ownerApi(
      server,
      worker.key,
      'POST',
      `/v1/rewards/approvals/${asked.approval_id}/decision`,
      {
        action: 'approve',
      },
    );
    expect(byAgent.status).toBe(401);
    // Another owner's token does not find the request at all.
    const other = await ownerApi(
      server,
      await ownerTokenOf(server, worker),
      'POST',
      `/v1/rewards/approvals/${asked.approval_id}/decision`,
      { action: 'approve' },
    );
    expect(other.body.error.code).toBe('NOT_FOUND');
    expect(await balance(server, worker, 'POINTS')).toBe(0);
  });

  it('a replayed idempotency key with other arguments is refused and moves nothing', async () => {
    const { coordinator, worker, campaignId } = await paidCampaign(500);
    const taskId = await publishTask(coordinator, campaignId, { reward_points: 100 });
    await work(worker, taskId);
    const idem = key();
    const first = await callTool(worker.client, 'reward_release', {
      task_id: taskId,
      action: 'RELEASE',
      idempotency_key: idem,
    });
    const replay = await callTool(worker.client, 'reward_release', {
      task_id: taskId,
      action: 'RELEASE',
      idempotency_key: idem,
    });
    expect(replay.body).toEqual(first.body);
    const other = await callTool(coordinator.client, 'reward_release', {
      task_id: taskId,
      action: 'RETURN',
      reason: 'x',
      idempotency_key: idem,
    });
    // Keys are per caller: the coordinator's RETURN with the worker's key is its own call.
    expect(other.isError).toBe(false);
    const mine = await callTool(coordinator.client, 'reward_release', {
      task_id: taskId,
      action: 'RELEASE',
      idempotency_key: idem,
    });
    expect(mine.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});

describe('who sees a reward', () => {
  it('under BLIND_EXPERIMENT, the payout is the worker’s own: other participants never learn who was paid', async () => {
    const { coordinator, worker, campaignId, token } = await paidCampaign(500, {
      visibility: 'BLIND_EXPERIMENT',
    });
    const peer = await newMember(server);
    await ok(peer, 'campaign_join', { campaign_id: campaignId });
    const taskId = await publishTask(coordinator, campaignId, { reward_points: 100 });
    await work(worker, taskId);
    const asked = await ok(worker, 'reward_release', { task_id: taskId, action: 'RELEASE' });
    await ownerApi(server, token, 'POST', `/v1/rewards/approvals/${asked.approval_id}/decision`, {
      action: 'approve',
    });
    const watch = (m: Member) =>
      ok(m, 'events_watch', { campaign_id: campaignId, limit: 200, wait_seconds: 1 }, false).then((w) =>
        w.events.map((e: { kind: string }) => e.kind),
      );
    expect(await watch(worker)).toEqual(expect.arrayContaining(['REWARD_RELEASE_REQUESTED', 'REWARD_PAID']));
    const seenByPeer = await watch(peer);
    expect(seenByPeer).not.toContain('REWARD_PAID');
    expect(seenByPeer).not.toContain('REWARD_RELEASE_REQUESTED');
    const task = await ok(peer, 'task_get', { task_id: taskId }, false);
    expect(task.reward).toMatchObject({ status: 'PAID', paid_to_agent_id: null });
  });
});

describe('funding', () => {
  it('publishes AWAITING_FUNDING when the balance is short; unclaimable until the owner funds it', async () => {
    const { coordinator, worker, campaignId, token } = await paidCampaign(50);
    const published = await ok(coordinator, 'task_publish', {
      campaign_id: campaignId,
      title: 'Paid fact',
      objective: 'o',
      acceptance: 'a',
      conditions: conditions(),
      reward_points: 100,
    });
    const taskId = published.task_id as string;
    expect(published.reward).toMatchObject({
      status: 'AWAITING_FUNDING',
      funding: { funded: false, fund_url: expect.stringContaining(`/console/rewards/fund/${taskId}`) },
    });
    // The claim is not offered; the owner's funding is.
    expect(published.next_steps.map((s: { tool?: string }) => s.tool)).not.toContain('task_claim');
    expect(await balance(server, coordinator, 'POINTS')).toBe(50);
    const refusedClaim = await refused(worker, 'task_claim', { task_id: taskId });
    expect(refusedClaim.code).toBe('REWARD_NOT_FUNDED');

    const short = await ownerApi(server, token, 'POST', `/v1/rewards/tasks/${taskId}/fund`, {});
    expect([short.status, short.body.error.code]).toEqual([409, 'INSUFFICIENT_FUNDS']);
    expect(short.body.error.details.shortfall_minor_units).toBe(60);

    // Unfunded, its terms may still change.
    await ok(coordinator, 'task_edit', { task_id: taskId, expected_version: 1, title: 'Paid fact, renamed' });
    await credit(server, coordinator, 'POINTS', 60);
    const funded = await ownerApi(server, token, 'POST', `/v1/rewards/tasks/${taskId}/fund`, {});
    expect(funded.status, JSON.stringify(funded.body)).toBe(200);
    expect(await balance(server, coordinator, 'POINTS')).toBe(0);
    // A funded task's terms are fixed; who it is reserved for is not.
    const task = await ok(coordinator, 'task_get', { task_id: taskId }, false);
    expect(task.editing.can_edit).toBe(false);
    const edit = await refused(coordinator, 'task_edit', {
      task_id: taskId,
      expected_version: task.version,
      title: 'x',
    });
    expect(edit).toMatchObject({ code: 'TASK_NOT_EDITABLE', details: { reason: 'its reward is funded' } });
    await ok(coordinator, 'task_assign', {
      task_id: taskId,
      expected_version: task.version,
      assignee_id: worker.agentId,
    });
    await ok(worker, 'task_claim', { task_id: taskId });
  });

  it('keeps rewards within the spend cap, the budget and its unit, and coordinators only', async () => {
    const coordinator = await newMember(server);
    const participant = await newMember(server);
    const campaignId = await campaignWith(coordinator, [participant], {
      budget: { amount: 50, unit: 'USD' },
      allow_agent_publish: true,
    });
    await credit(server, coordinator, 'USD', 100_000);
    const byParticipant = await refused(participant, 'task_publish', {
      campaign_id: campaignId,
      title: 't',
      objective: 'o',
      acceptance: 'a',
      conditions: conditions(),
      reward_usd: 5,
    });
    expect(byParticipant.code).toBe('ROLE_REQUIRED');
    const overCap = await refused(coordinator, 'task_publish', {
      campaign_id: campaignId,
      title: 't',
      objective: 'o',
      acceptance: 'a',
      // $10 plus the 10% fee is $11: over a $10.50 cap.
      conditions: { ...conditions(), max_spend_usd: 10.5 },
      reward_usd: 10,
    });
    expect(overCap).toMatchObject({ code: 'REWARD_OVER_LIMIT', details: { limit: 'max_spend_usd' } });
    const cents = await refused(coordinator, 'task_publish', {
      campaign_id: campaignId,
      title: 't',
      objective: 'o',
      acceptance: 'a',
      conditions: conditions(),
      reward_usd: 1.005,
    });
    expect(cents.code).toBe('VALIDATION_FAILED');
    const points = await refused(coordinator, 'task_publish', {
      campaign_id: campaignId,
      title: 't',
      objective: 'o',
      acceptance: 'a',
      conditions: conditions(),
      reward_points: 5,
    });
    expect(points.details.limit).toBe('budget_unit');
    await publishTask(coordinator, campaignId, { reward_usd: 40 });
    // $44 of $50 is committed; $10 + $1 fee does not fit.
    const overBudget = await refused(coordinator, 'task_publish', {
      campaign_id: campaignId,
      title: 't',
      objective: 'o',
      acceptance: 'a',
      conditions: conditions(),
      reward_usd: 10,
    });
    expect(overBudget.details).toMatchObject({ limit: 'campaign_budget', left: { minor_units: 600 } });
    expect(await balance(server, coordinator, 'USD')).toBe(100_000 - 4_400);
  });
});

describe('operator credits over HTTP', () => {
  it('need an operator and a reference; a retried credit moves money once', async () => {
    const identity = server.app.services.identity;
    await identity.addOwner(OPERATOR, 'correct horse battery staple');
    const operatorToken = await ownerTokenOf(server, { ownerEmail: OPERATOR });
    const someone = await newMember(server);
    const body = {
      owner_email: someone.ownerEmail,
      currency: 'USD',
      amount: 12.34,
      reference: `grant-${key()}`,
    };
    const noReference = await ownerApi(server, operatorToken, 'POST', '/v1/funds/credits', {
      ...body,
      reference: undefined,
    });
    expect([noReference.status, noReference.body.error.code]).toEqual([422, 'VALIDATION_FAILED']);
    const first = await ownerApi(server, operatorToken, 'POST', '/v1/funds/credits', body);
    expect([first.status, first.body.credited.minor_units]).toEqual([201, 1234]);
    const retried = await ownerApi(server, operatorToken, 'POST', '/v1/funds/credits', body);
    expect([retried.status, retried.body.replayed]).toEqual([200, true]);
    expect(await balance(server, someone, 'USD')).toBe(1234);
    // Not an operator: refused, and nothing moves.
    const byOwner = await ownerApi(server, await ownerTokenOf(server, someone), 'POST', '/v1/funds/credits', {
      ...body,
      reference: `grant-${key()}`,
    });
    expect([byOwner.status, byOwner.body.error.code]).toEqual([403, 'OPERATOR_REQUIRED']);
    expect(await balance(server, someone, 'USD')).toBe(1234);
    // Large dollar amounts keep their cents; a third decimal is refused.
    const large = await ownerApi(server, operatorToken, 'POST', '/v1/funds/credits', {
      ...body,
      amount: 12_345_678.91,
      reference: `grant-${key()}`,
    });
    expect(large.body.credited?.minor_units).toBe(1_234_567_891);
    const third = await ownerApi(server, operatorToken, 'POST', '/v1/funds/credits', {
      ...body,
      amount: 1.005,
      reference: `grant-${key()}`,
    });
    expect(third.body.error.code).toBe('VALIDATION_FAILED');
  });
});

describe('paid work is verified harder', () => {
  it('refuses quotations backed only by evidence another member read', async () => {
    const { coordinator, worker, campaignId } = await paidCampaign(500);
    const reader = await newMember(server);
    await ok(reader, 'campaign_join', { campaign_id: campaignId });
    // The reader reads the article under an unpaid task: shared campaign evidence.
    const helper = await publishTask(coordinator, campaignId);
    await ok(reader, 'task_claim', { task_id: helper });
    const shared = await readUnder(reader, helper);

    const taskId = await publishTask(coordinator, campaignId, { reward_points: 100 });
    const borrowed = await work(worker, taskId, shared);
    expect(borrowed.body.task_status).toBe('CLAIMED');
    expect(borrowed.body.paid_quotes.unmatched.map((q: { quote: string }) => q.quote)).toEqual([
      ARTICLE_QUOTE,
    ]);
    const notYet = await refused(worker, 'reward_release', { task_id: taskId, action: 'RELEASE' });
    expect(notYet.code).toBe('REWARD_NOT_RELEASABLE');
    expect(notYet.details.unmatched_paid_quotes).toHaveLength(1);

    // Reading it itself under the task, then resubmitting, passes.
    const own = await readUnder(worker, taskId);
    const task = await ok(worker, 'task_get', { task_id: taskId }, false);
    const resubmitted = await ok(worker, 'task_complete', {
      task_id: taskId,
      lease_id: task.lease.lease_id,
      evidence_ids: [own],
      claimed_outcome: 'COMPLETE',
      summary,
    });
    expect(resubmitted.task_status).toBe('VERIFIED');
    expect(resubmitted.paid_quotes.unmatched).toEqual([]);
  });
});

describe('rework', () => {
  it('returns to the same worker within rework_limit, and to everyone past it', async () => {
    const { coordinator, worker, campaignId, token } = await paidCampaign(500);
    const other = await newMember(server);
    await ok(other, 'campaign_join', { campaign_id: campaignId });
    const taskId = await publishTask(coordinator, campaignId, {
      reward_points: 100,
      conditions: { ...conditions(), rework_limit: 1 },
    });
    await work(worker, taskId);
    const asked = await ok(worker, 'reward_release', { task_id: taskId, action: 'RELEASE' });
    // The owner returns it with a reason: rework 1 of 1, reserved for the worker.
    const returned = await ownerApi(
      server,
      token,
      'POST',
      `/v1/rewards/approvals/${asked.approval_id}/decision`,
      {
        action: 'return',
        reason: 'Quote the date as well.',
      },
    );
    expect(returned.body).toMatchObject({
      status: 'RETURNED',
      task: { reserved_for: worker.agentId, rework_count: 1 },
    });
    expect((await refused(other, 'task_claim', { task_id: taskId })).code).toBe('TASK_NOT_CLAIMABLE');
    expect((await work(worker, taskId)).body.task_status).toBe('VERIFIED');

    // A participant who is not the reviewer cannot return it; the coordinator can.
    expect(
      (await refused(other, 'reward_release', { task_id: taskId, action: 'RETURN', reason: 'no' })).code,
    ).toBe('ROLE_REQUIRED');
    const past = await ok(coordinator, 'reward_release', {
      task_id: taskId,
      action: 'RETURN',
      reason: 'Still thin.',
    });
    expect(past).toMatchObject({ rework_count: 2, rework_limit: 1, reserved_for: null, status: 'OPEN' });
    // A returned task's reservation can still be given to someone: nobody is stuck waiting.
    const reopened = await ok(coordinator, 'task_get', { task_id: taskId }, false);
    await ok(coordinator, 'task_assign', {
      task_id: taskId,
      expected_version: reopened.version,
      assignee_id: other.agentId,
    });
    expect((await refused(worker, 'task_claim', { task_id: taskId })).code).toBe('TASK_NOT_CLAIMABLE');
    await ok(other, 'task_claim', { task_id: taskId });
    const task = await ok(coordinator, 'task_get', { task_id: taskId }, false);
    expect(task.reward.status).toBe('ESCROWED');
  });
});

describe('cancellation', () => {
  it('refunds the escrow in the same transaction; an approval after it moves nothing', async () => {
    const { coordinator, worker, campaignId, token } = await paidCampaign(1_000);
    const taskId = await publishTask(coordinator, campaignId, { reward_points: 300 });
    expect(await balance(server, coordinator, 'POINTS')).toBe(670);
    await work(worker, taskId);
    const asked = await ok(worker, 'reward_release', { task_id: taskId, action: 'RELEASE' });
    const cancelled = await ownerApi(server, token, 'POST', `/v1/tasks/${taskId}/cancel`, {
      reason: 'No longer needed.',
    });
    expect(cancelled.body).toMatchObject({
      status: 'CANCELLED',
      reward_status: 'REFUNDED',
      refunded: { minor_units: 330 },
    });
    // Nothing was paid for: the reward and its fee both come back.
    expect(await balance(server, coordinator, 'POINTS')).toBe(1_000);
    const after = await ownerApi(
      server,
      token,
      'POST',
      `/v1/rewards/approvals/${asked.approval_id}/decision`,
      {
        action: 'approve',
      },
    );
    expect(after.body.error).toMatchObject({
      code: 'APPROVAL_NOT_PENDING',
      details: { status: 'CANCELLED' },
    });
    expect(await balance(server, worker, 'POINTS')).toBe(0);

    // A worker holding a lease on a cancelled task is never paid: its lease ended with the task.
    const held = await publishTask(coordinator, campaignId, { reward_points: 100 });
    const claimed = await ok(worker, 'task_claim', { task_id: held });
    const evidenceId = await readUnder(worker, held);
    await ownerApi(server, token, 'POST', `/v1/tasks/${held}/cancel`, { reason: 'Stop.' });
    const late = await callTool(worker.client, 'task_complete', {
      task_id: held,
      lease_id: claimed.lease.lease_id,
      evidence_ids: [evidenceId],
      claimed_outcome: 'COMPLETE',
      summary,
      idempotency_key: key(),
    });
    expect(late.body.error).toMatchObject({ code: 'LEASE_NOT_CURRENT', details: { reason: 'CANCELLED' } });
    expect(late.body.error.message).toContain('cancelled the task');
    expect(late.body.error.allowed_alternatives.map((a: { tool: string }) => a.tool)).toEqual(['task_list']);
  });
});

describe('concurrent decisions', () => {
  it('approve and return at once: exactly one wins and money moves at most once', async () => {
    const { coordinator, worker, campaignId, token } = await paidCampaign(500);
    const taskId = await publishTask(coordinator, campaignId, { reward_points: 100 });
    await work(worker, taskId);
    const asked = await ok(worker, 'reward_release', { task_id: taskId, action: 'RELEASE' });
    const path = `/v1/rewards/approvals/${asked.approval_id}/decision`;
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => ownerApi(server, token, 'POST', path, { action: 'approve' })),
      ...Array.from({ length: 5 }, () =>
        ownerApi(server, token, 'POST', path, { action: 'return', reason: 'redo' }),
      ),
    ]);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(
      answers.filter((a) => a.status === 409).every((a) => a.body.error.code === 'APPROVAL_NOT_PENDING'),
    ).toBe(true);
    const paid = await balance(server, worker, 'POINTS');
    expect([0, 100]).toContain(paid);
  });
});
