import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, key } from '../support/campaigns.ts';
import { callTool, connectClient } from '../support/factories.ts';
import { type MatchingMember, matchingMember, openCall } from '../support/matching.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { ownerApi } from '../support/owner-api.ts';
import { type Replica, startReplica } from '../support/replicas.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 19, "a second concurrent request refused" and the owners' decision order, raced over two
 * `cairn serve` processes on one PostgreSQL database (this file's own; skipped without
 * TEST_DATABASE_URL). Setup (owners, agents, consent, the campaign and its call) goes through an
 * in-process server on the same data; every raced call goes to the replicas.
 *
 * 1. One applicant, with one MCP session on each replica, sends 20 matching_interest calls at
 *    once (10 through each) to the same campaign call: one is PROPOSED, the 19 others are
 *    MATCHING_REQUEST_OPEN naming the winner, and one request is stored.
 *    Fails without the partial unique index matching_requests_open_key: the advisory lock
 *    only serializes the proposals, nothing else looks for an open one, so all 20 are PROPOSED.
 *    Fails without `.onConflictDoNothing()`: the losers hit the unique violation and answer an
 *    internal error, not MATCHING_REQUEST_OPEN. Fails if the refusal looked the open request up
 *    in a snapshot that cannot see the winner (matching_request_id null).
 * 2. The coordinator accepts; then the applicant's owner sends 10 ACCEPTs at once, each trying
 *    again after a few ms while the answer is MATCHING_NOT_YOUR_TURN waiting for CAMPAIGN_OWNER
 *    (as an impatient owner would), and as soon as the first of them is answered the campaign's
 *    owner sends 10 ACCEPTs at once; each owner's calls are split 5 and 5 over the replicas.
 *    So the applicant's owner is refused out of turn at least once (checked), and its calls
 *    race the campaign owner's turn. Exactly one answer of each owner is 200, every
 *    other one is 409 MATCHING_NOT_YOUR_TURN or MATCHING_REQUEST_ENDED; the request is JOINED
 *    with campaign_owner_decided_at <= joiner_owner_decided_at on both replicas; the ledger
 *    (events_watch: context_read shows messages, not events) has one MEMBER_JOINED via MATCHING
 *    for the applicant; matching_changes holds PROPOSED, TENTATIVE, TENTATIVE, JOINED once each.
 *    Fails without serialization of decide, that is without BOTH its advisory lock taken first
 *    and the row's `.for('update')` (either alone is enough: every matching write takes the
 *    advisory lock before reading the row): calls of one owner then all read "waiting for me"
 *    and all answer 200, recording extra TENTATIVE and JOINED changes. Fails if the turn check
 *    let the joining agent's owner go first (JOINED with no decision of the campaign owner's,
 *    whose ACCEPTs then all end MATCHING_REQUEST_ENDED). Fails if decided_at were the time a
 *    call came in rather than the time it decided: a call of the applicant's owner that came
 *    in a few ms before the campaign owner's winning call but got the lock after it would join
 *    with the earlier time.
 * 3. A matching_watch on replica A (25-second timeout) returns the change within 2 s of a
 *    request made through replica B. Fails without the pg_notify on cairn_matching (or without
 *    each replica LISTENing on it): the watcher then finds the change only at its own re-read
 *    five seconds into the wait, which is more than 4 s after the request here.
 */

const url = process.env.TEST_DATABASE_URL;
const secret = randomBytes(32).toString('hex');
let own: OwnDatabase;
let setup: TestServer;
let a: Replica;
let b: Replica;

beforeAll(async () => {
  if (!url) return;
  own = await ownDatabase('cairn_match_rep', url, 4);
  setup = await startTestServer({ database: own.database, env: { CAIRN_SECRET: secret } });
  [a, b] = (await Promise.all([startReplica(own.url, secret), startReplica(own.url, secret)])) as [
    Replica,
    Replica,
  ];
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(2_000), b?.stop(2_000)]);
  await setup?.close();
  await own?.drop();
});

// biome-ignore lint/suspicious/noExplicitAny: the test reads into arbitrary JSON answers
type Json = Record<string, any>;

const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
});

/** An MCP session of `m` on `replica` (closed after the file). */
async function on(replica: Replica, m: MatchingMember): Promise<Client> {
  const client = await connectClient(replica.url, m.key);
  clients.push(client);
  return client;
}

async function mustAnswer(client: Client, tool: string, args: Record<string, unknown>): Promise<Json> {
  const r = await callTool(client, tool, args);
  expect(r.isError, `${tool}: ${JSON.stringify(r.body)}`).toBe(false);
  return r.body;
}

/** The owner API of one replica. */
const accept = (replica: Replica, token: string, id: string) =>
  ownerApi(replica, token, 'POST', `/v1/matching/requests/${id}/decision`, { decision: 'ACCEPT' });

/** A coordinator (matching on) of a campaign taking applications, and its call, set up in process. */
async function campaignCalling() {
  const coordinator = await matchingMember(setup);
  const campaignId = await campaignWith(coordinator, [], { participation: 'APPLICATION' });
  const topic = `t${randomBytes(5).toString('hex')}`;
  const call = await openCall(setup, coordinator, campaignId, topic);
  return { coordinator, campaignId, call };
}

const interest = (call: { intent_id: string; application_ref: string }) => ({
  intent_id: call.intent_id,
  reason: 'I read bird atlases and quote them.',
  task_ref: call.application_ref,
  idempotency_key: key(),
});

describe.skipIf(!url)('matching raced on two replicas', () => {
  it('20 concurrent proposals by one applicant over two replicas: one PROPOSED, 19 MATCHING_REQUEST_OPEN naming it', async () => {
    const { call } = await campaignCalling();
    const applicant = await matchingMember(setup);
    const [onA, onB] = await Promise.all([on(a, applicant), on(b, applicant)]);

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        callTool(i % 2 === 0 ? onA : onB, 'matching_interest', interest(call)),
      ),
    );
    const codes = results.map((r) => (r.isError ? r.body?.error?.code : r.body?.state));
    const winners = results.filter((r) => !r.isError).map((r) => r.body);
    expect(winners, JSON.stringify(codes)).toHaveLength(1);
    const won = winners[0] as Json;
    expect(won).toMatchObject({
      state: 'PROPOSED',
      waiting_for: 'RESPONDER',
      your_role: 'REQUESTER',
      matching_request_id: expect.stringMatching(/^mreq_/),
    });
    const refusals = results.filter((r) => r.isError).map((r) => r.body.error);
    expect(refusals.map((e) => e?.code)).toEqual(Array(19).fill('MATCHING_REQUEST_OPEN'));
    for (const e of refusals) expect(e.details).toEqual({ matching_request_id: won.matching_request_id });

    // The applicant's own list, through either replica, and the table: one request.
    for (const client of [onA, onB]) {
      const listed = await mustAnswer(client, 'matching_requests', {});
      expect(listed.requests.map((r: Json) => r.matching_request_id)).toEqual([won.matching_request_id]);
    }
    const stored = await own.audit<{ id: string; state: string }>(
      sql`select id, state from matching_requests where requester_agent_id = ${applicant.agentId}`,
    );
    expect(stored).toEqual([{ id: won.matching_request_id, state: 'PROPOSED' }]);
  }, 120_000);

  it('10 + 10 concurrent owner ACCEPTs over two replicas: one join, in order, one MEMBER_JOINED', async () => {
    const { coordinator, campaignId, call } = await campaignCalling();
    const applicant = await matchingMember(setup);
    const made = await mustAnswer(await on(b, applicant), 'matching_interest', interest(call));
    const id = made.matching_request_id as string;
    const coordinatorOnA = await on(a, coordinator);
    const answered = await mustAnswer(coordinatorOnA, 'matching_respond', {
      matching_request_id: id,
      decision: 'ACCEPT',
      idempotency_key: key(),
    });
    expect(answered).toMatchObject({ state: 'TENTATIVE', waiting_for: 'CAMPAIGN_OWNER' });

    type Answer = { status: number; body: Json; who: 'CAMPAIGN_OWNER' | 'JOINER_OWNER' };
    const answers: Answer[] = [];
    const deadline = Date.now() + 30_000;
    // The campaign owner's ACCEPTs go out once the first ACCEPT of the applicant's owner came
    // back, while the others of the applicant's owner are still in flight or trying again.
    let firstAnswered = () => {};
    const firstAnswer = new Promise<void>((resolve) => {
      firstAnswered = resolve;
    });
    const campaignOwner = async (i: number) => {
      await firstAnswer;
      const res = await accept(i % 2 === 0 ? a : b, coordinator.ownerToken, id);
      answers.push({ ...res, who: 'CAMPAIGN_OWNER' });
    };
    // The applicant's owner: each of ten tries again while it is still the campaign owner's turn.
    const joinerOwner = async (i: number) => {
      for (;;) {
        const res = await accept(i % 2 === 0 ? b : a, applicant.ownerToken, id);
        answers.push({ ...res, who: 'JOINER_OWNER' });
        firstAnswered();
        const early =
          res.body.error?.code === 'MATCHING_NOT_YOUR_TURN' &&
          res.body.error?.details?.waiting_for === 'CAMPAIGN_OWNER';
        if (!early || Date.now() > deadline) return;
        await new Promise((r) => setTimeout(r, 2 + Math.random() * 10));
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: 10 }, (_, i) => [joinerOwner(i), campaignOwner(i)]).flat());
    const raced = performance.now() - started;

    const summary = JSON.stringify(
      answers.map((x) => [x.who, x.status, x.body.error?.code ?? x.body.state, x.body.error?.details]),
    );
    const ok = answers.filter((x) => x.status === 200);
    expect(ok.map((x) => x.who).sort(), summary).toEqual(['CAMPAIGN_OWNER', 'JOINER_OWNER']);
    for (const x of answers.filter((y) => y.status !== 200)) {
      expect(x.status, summary).toBe(409);
      expect(['MATCHING_NOT_YOUR_TURN', 'MATCHING_REQUEST_ENDED'], summary).toContain(x.body.error?.code);
    }
    // The applicant's owner was refused while it was the campaign owner's turn, at least once.
    const early = answers.filter(
      (x) => x.who === 'JOINER_OWNER' && x.body.error?.details?.waiting_for === 'CAMPAIGN_OWNER',
    );
    expect(early.length, summary).toBeGreaterThanOrEqual(1);
    const joined = ok.find((x) => x.who === 'JOINER_OWNER') as Answer;
    expect(joined.body).toMatchObject({ state: 'JOINED', waiting_for: null });
    expect(answers.filter((x) => x.who === 'CAMPAIGN_OWNER')).toHaveLength(10);
    expect(answers.filter((x) => x.who === 'JOINER_OWNER').length).toBeGreaterThan(10);

    // Both owners see one JOINED request on either replica, the campaign owner's decision first.
    for (const replica of [a, b]) {
      for (const token of [coordinator.ownerToken, applicant.ownerToken]) {
        const seen = await ownerApi(replica, token, 'GET', `/v1/matching/requests/${id}`);
        expect(seen.status).toBe(200);
        expect(seen.body).toMatchObject({ state: 'JOINED', waiting_for: null, your_turn: false });
        const byCampaignOwner = Date.parse(seen.body.campaign_owner_decided_at);
        const byJoinerOwner = Date.parse(seen.body.joiner_owner_decided_at);
        expect(Number.isNaN(byCampaignOwner) || Number.isNaN(byJoinerOwner), JSON.stringify(seen.body)).toBe(
          false,
        );
        expect(byCampaignOwner, JSON.stringify(seen.body)).toBeLessThanOrEqual(byJoinerOwner);
      }
    }
    // Each move of the request recorded once: proposed, answered, campaign owner, join.
    const changes = await own.audit<{ state: string }>(
      sql`select state from matching_changes where request_id = ${id} order by id`,
    );
    expect(changes.map((c) => c.state)).toEqual(['PROPOSED', 'TENTATIVE', 'TENTATIVE', 'JOINED']);

    // One MEMBER_JOINED for the applicant on the ledger (events_watch; context_read shows messages).
    const watched = await mustAnswer(await on(b, coordinator), 'events_watch', {
      campaign_id: campaignId,
      wait_seconds: 1,
      limit: 200,
    });
    const joins = (watched.events as Json[]).filter(
      (e) => e.kind === 'MEMBER_JOINED' && e.payload?.agent_id === applicant.agentId,
    );
    expect(joins).toHaveLength(1);
    expect(joins[0]?.payload).toMatchObject({
      via: 'MATCHING',
      matching_request_id: id,
      role: 'PARTICIPANT',
    });
    // And the applicant is a participant, through the other replica.
    const status = await mustAnswer(await on(a, applicant), 'campaign_status', { campaign_id: campaignId });
    expect(status.campaign_id ?? status.campaign?.campaign_id).toBe(campaignId);
    console.info(
      `[matching-replicas] ${answers.length} owner decisions (${early.length} of the applicant's owner too early) in ${Math.round(raced)} ms`,
    );
  }, 120_000);

  it('a matching_watch on replica A wakes within 2 s when a request is made through replica B', async () => {
    const { coordinator, call } = await campaignCalling();
    const applicant = await matchingMember(setup);
    const watcherOnA = await on(a, coordinator);
    const applicantOnB = await on(b, applicant);
    const start = await mustAnswer(watcherOnA, 'matching_watch', { timeout_seconds: 1 });
    expect(start.timed_out).toBe(true);

    const watchStarted = performance.now();
    const waiting = callTool(watcherOnA, 'matching_watch', {
      after_cursor: start.cursor,
      timeout_seconds: 25,
    });
    let wokeAt = 0;
    void waiting.then(() => {
      wokeAt = performance.now();
    });
    // Long enough for the watcher to be waiting; well before its first re-read (5 s into the wait).
    await new Promise((r) => setTimeout(r, 700));
    expect(wokeAt).toBe(0);
    const proposedAt = performance.now();
    const made = await mustAnswer(applicantOnB, 'matching_interest', interest(call));
    const woke = await waiting;
    expect(woke.isError, JSON.stringify(woke.body)).toBe(false);
    expect(woke.body).toMatchObject({
      timed_out: false,
      changes: [{ matching_request_id: made.matching_request_id, state: 'PROPOSED', at: expect.any(String) }],
    });
    const afterProposal = wokeAt - proposedAt;
    expect(afterProposal).toBeLessThan(2_000);
    expect(wokeAt - watchStarted).toBeLessThan(25_000);
    console.info(
      `[matching-replicas] watcher on A woke ${Math.round(afterProposal)} ms after the request on B`,
    );
  }, 60_000);
});
