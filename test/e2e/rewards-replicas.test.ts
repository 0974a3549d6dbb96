import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAIRN_BIN } from '../support/cairn-cli.ts';
import { campaignWith, conditions, key, type Member, newMember, ok } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { ARTICLE_QUOTE, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { type Replica, startReplica } from '../support/replicas.ts';
import { balance, credit, ownerTokenOf } from '../support/rewards.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 17: an owner's decision on a release request is taken once, even when it arrives many
 * times at once on two `cairn serve` processes over one PostgreSQL database (of this file's own).
 * The paid task is set up through an in-process server on the same data (it alone may read the
 * loopback fixture site); the decisions go only to the two replicas, over the real owner API.
 *
 * What catches a decision that is not serialised: 50 approvals of one request must give one
 * 200 and 49 409s and pay once (the funds ledger's unique `settle:<task>` key is a second line
 * of defence there, so the money alone would not show it); 20 mixed approvals and returns have
 * no such backstop: without the task and approval locks a return that read PENDING before the
 * approval committed would also answer 200 and reopen a task whose reward was already paid,
 * which the one-winner count and the state checks below refuse.
 */

const url = process.env.TEST_DATABASE_URL;
const secret = randomBytes(32).toString('hex');
let site: FixtureSite;
let own: OwnDatabase;
let setup: TestServer;
let replicas: Replica[] = [];

beforeAll(async () => {
  if (!url) return;
  site = await startFixtureSite();
  own = await ownDatabase('cairn_rewards_rep', url, 4);
  // A 10% platform fee, taken once at publishing, so the campaign owner's balance proves it too.
  setup = await startTestServer({
    database: own.database,
    env: { CAIRN_SECRET: secret, CAIRN_PLATFORM_FEE_PCT: '10', ...site.env },
  });
  replicas = await Promise.all([startReplica(own.url, secret), startReplica(own.url, secret)]);
}, 120_000);
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop(2_000)));
  await setup?.close();
  await own?.drop();
  await site?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: the test reads into arbitrary JSON answers
type Json = Record<string, any>;

const CREDIT = 1_000;

/** Publishes a paid task, has `worker` claim, read under it and complete it, and ask for release. */
async function pendingRelease(coordinator: Member, worker: Member, campaignId: string, points: number) {
  const published = await ok(coordinator, 'task_publish', {
    campaign_id: campaignId,
    title: 'Paid fact',
    objective: 'Find one verifiable fact.',
    acceptance: 'A quotation that matches a recorded source.',
    conditions: conditions(),
    reward_points: points,
  });
  expect(published.reward).toMatchObject({ reward_points: points, status: 'ESCROWED' });
  const taskId = published.task_id as string;
  const claimed = await ok(worker, 'task_claim', { task_id: taskId });
  const read = await callTool(worker.client, 'fetch_text', {
    url: `${site.origin}/article`,
    declared_purpose: 'Checking facts for the paid task.',
    task_id: taskId,
  });
  expect(read.isError, JSON.stringify(read.body)).toBe(false);
  const done = await callTool(worker.client, 'task_complete', {
    task_id: taskId,
    lease_id: claimed.lease.lease_id,
    evidence_ids: [read.body.evidence_id],
    claimed_outcome: 'COMPLETE',
    summary: `The article states "${ARTICLE_QUOTE}" which answers the question.`,
    idempotency_key: key(),
  });
  expect(done.body.task_status, JSON.stringify(done.body)).toBe('VERIFIED');
  const asked = await ok(worker, 'reward_release', { task_id: taskId, action: 'RELEASE' });
  expect(asked.status).toBe('AWAITING_OWNER_APPROVAL');
  return { taskId, approvalId: asked.approval_id as string };
}

/** One decision on a replica through the owner API; answers status and parsed body. */
async function decide(
  replica: Replica,
  token: string,
  approvalId: string,
  body: { action: 'approve' | 'return'; reason?: string },
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${replica.url}/v1/rewards/approvals/${approvalId}/decision`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    parsed = { unparsed: text.slice(0, 500) };
  }
  return { status: res.status, body: parsed };
}

/** Answers counted as "<status> <status or error code>", e.g. {"200 APPROVED": 1, "409 APPROVAL_NOT_PENDING": 49}. */
function tally(answers: Array<{ status: number; body: Json }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of answers) {
    const what = a.body.error?.code ?? a.body.status ?? JSON.stringify(a.body).slice(0, 80);
    const label = `${a.status} ${what}`;
    out[label] = (out[label] ?? 0) + 1;
  }
  return out;
}

/** Where one task's money and state stand, read from the database itself. */
async function stateOf(taskId: string) {
  const [task] = await own.audit<{ status: string; rework_count: number }>(
    sql`select status, rework_count from tasks where id = ${taskId}`,
  );
  const [reward] = await own.audit<{ status: string }>(
    sql`select status from task_rewards where task_id = ${taskId}`,
  );
  const approvals = await own.audit<{ status: string; transaction_id: string | null }>(
    sql`select status, transaction_id from reward_approvals where task_id = ${taskId}`,
  );
  const releases = await own.audit<{ id: string; purpose_key: string }>(
    sql`select id, purpose_key from fund_transactions where task_id = ${taskId} and kind = 'RELEASE'`,
  );
  const [escrow] = await own.audit<{ held: string | number | null }>(
    sql`select coalesce(sum(p.amount), 0) as held from fund_accounts a
          left join fund_postings p on p.account_id = a.id where a.key = ${`escrow:${taskId}:POINTS`}`,
  );
  const events = await own.audit<{ kind: string; n: number }>(
    sql`select kind, count(*)::int as n from campaign_events
         where task_id = ${taskId} and kind in ('REWARD_PAID', 'TASK_RETURNED') group by kind`,
  );
  return {
    task,
    reward: reward?.status,
    approvals,
    releases,
    escrow: Number(escrow?.held ?? 0),
    events: Object.fromEntries(events.map((e) => [e.kind, e.n])),
  };
}

/** `cairn rewards check --json` as an operator runs it, against this file's database. */
async function rewardsCheck(): Promise<{ code: number | null; result: Json; stderr: string }> {
  const dataDir = mkdtempSync(`${os.tmpdir()}/cairn-rewards-check-`);
  try {
    return await new Promise((resolve) => {
      const child = spawn(process.execPath, [CAIRN_BIN, 'rewards', 'check', '--json'], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          CAIRN_DATA_DIR: dataDir,
          DATABASE_URL: own.url,
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => {
        let result: Json = {};
        try {
          result = JSON.parse(stdout) as Json;
        } catch {
          result = { unparsed: stdout };
        }
        resolve({ code, result, stderr });
      });
    });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function expectBooksBalanced() {
  const check = await rewardsCheck();
  expect(check.code, `${JSON.stringify(check.result)}\n${check.stderr}`).toBe(0);
  expect(check.result).toMatchObject({
    ok: true,
    funds: { ok: true, unbalanced_transactions: [], negative_accounts: [] },
    rewards: { ok: true, escrow_mismatches: [], double_payments: 0 },
  });
  for (const sum of Object.values(check.result.funds.sum_by_currency)) expect(sum).toBe(0);
}

describe.skipIf(!url)('release decisions raced on two replicas', () => {
  let coordinator: Member;
  let token: string;
  let campaignId: string;
  const workers: Member[] = [];

  beforeAll(async () => {
    if (!url) return;
    coordinator = await newMember(setup);
    // Two workers of two other owners: each payout lands on a balance of its own.
    workers.push(await newMember(setup), await newMember(setup));
    campaignId = await campaignWith(coordinator, workers);
    await credit(setup, coordinator, 'POINTS', CREDIT);
    token = await ownerTokenOf(setup, coordinator);
  }, 60_000);

  it('50 approvals of one request at once, on both replicas: one 200, 49 409s, paid once', async () => {
    const [worker] = workers as [Member];
    const { taskId, approvalId } = await pendingRelease(coordinator, worker, campaignId, 200);
    // 200 to escrow and the 10% fee (20) to the platform, at publishing.
    expect(await balance(setup, coordinator, 'POINTS')).toBe(CREDIT - 220);
    expect(await balance(setup, worker, 'POINTS')).toBe(0);

    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        decide(replicas[i % 2] as Replica, token, approvalId, { action: 'approve' }),
      ),
    );
    expect(tally(answers)).toEqual({ '200 APPROVED': 1, '409 APPROVAL_NOT_PENDING': 49 });
    const won = answers.find((a) => a.status === 200) as { body: Json };
    expect(won.body).toMatchObject({
      approval_id: approvalId,
      paid: { minor_units: 200 },
      paid_to_agent_id: worker.agentId,
    });
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body.error.details).toMatchObject({ approval_id: approvalId, status: 'APPROVED' });
    }

    // Paid once: one RELEASE under the task's settle key, the request approved with it.
    const state = await stateOf(taskId);
    expect(state.releases).toEqual([{ id: won.body.transaction_id, purpose_key: `settle:${taskId}` }]);
    expect(state.approvals).toEqual([{ status: 'APPROVED', transaction_id: won.body.transaction_id }]);
    expect(state).toMatchObject({
      task: { status: 'VERIFIED', rework_count: 0 },
      reward: 'PAID',
      escrow: 0,
      events: { REWARD_PAID: 1 },
    });
    expect(await balance(setup, worker, 'POINTS')).toBe(200);
    expect(await balance(setup, coordinator, 'POINTS')).toBe(CREDIT - 220);
    await expectBooksBalanced();
  }, 120_000);

  it('20 approvals and returns of one request at once: one winner, exact balances', async () => {
    const [, worker] = workers as [Member, Member];
    const { taskId, approvalId } = await pendingRelease(coordinator, worker, campaignId, 150);
    // The first task's 220 and this one's 150 + 15.
    expect(await balance(setup, coordinator, 'POINTS')).toBe(CREDIT - 220 - 165);

    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        // approve, return, approve, return…, each action on both replicas.
        decide(
          replicas[Math.floor(i / 2) % 2] as Replica,
          token,
          approvalId,
          i % 2 === 0
            ? { action: 'approve' }
            : { action: 'return', reason: `Quote ${i} needs a second source.` },
        ),
      ),
    );
    const winners = answers.filter((a) => a.status === 200);
    expect(winners.length, JSON.stringify(tally(answers))).toBe(1);
    const won = (winners[0] as { body: Json }).body;
    expect(tally(answers)).toEqual({ [`200 ${won.status}`]: 1, '409 APPROVAL_NOT_PENDING': 19 });

    const state = await stateOf(taskId);
    if (won.status === 'APPROVED') {
      expect(state.releases).toEqual([{ id: won.transaction_id, purpose_key: `settle:${taskId}` }]);
      expect(state.approvals).toEqual([{ status: 'APPROVED', transaction_id: won.transaction_id }]);
      expect(state).toMatchObject({
        task: { status: 'VERIFIED', rework_count: 0 },
        reward: 'PAID',
        escrow: 0,
        events: { REWARD_PAID: 1 },
      });
      expect(state.events.TASK_RETURNED).toBeUndefined();
      expect(await balance(setup, worker, 'POINTS')).toBe(150);
    } else {
      expect(won.status).toBe('RETURNED');
      // Returned for rework: nothing paid, the reward still in escrow, the task reopened once.
      expect(state.releases).toEqual([]);
      expect(state.approvals).toEqual([{ status: 'RETURNED', transaction_id: null }]);
      expect(state).toMatchObject({
        task: { status: 'OPEN', rework_count: 1 },
        reward: 'ESCROWED',
        escrow: 150,
        events: { TASK_RETURNED: 1 },
      });
      expect(state.events.REWARD_PAID).toBeUndefined();
      expect(await balance(setup, worker, 'POINTS')).toBe(0);
    }
    // Whoever won, the campaign owner's balance moved only at publishing, and the first payout stands.
    expect(await balance(setup, coordinator, 'POINTS')).toBe(CREDIT - 220 - 165);
    expect(await balance(setup, workers[0] as Member, 'POINTS')).toBe(200);
    await expectBooksBalanced();
  }, 120_000);
});
