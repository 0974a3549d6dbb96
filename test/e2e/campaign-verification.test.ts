import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  campaignWith,
  claimedTask,
  inertMember,
  key,
  type Member,
  newMember,
  ok,
  refused,
} from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { ARTICLE_QUOTE, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Issue 5 items 5 and 6: reading under a lease, and verified completion against HTML and PDF evidence. */

let site: FixtureSite;
let server: TestServer;
beforeAll(async () => {
  site = await startFixtureSite();
  server = await startTestServer({ env: site.env });
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

const read = async (m: Member, path: string, taskId?: string) =>
  callTool(m.client, 'fetch_text', {
    url: `${site.origin}${path}`,
    declared_purpose: 'Checking facts for the campaign task.',
    ...(taskId ? { task_id: taskId } : {}),
  });

const PDF_QUOTE = 'cairns mark trails across open moorland';

describe('reading inside a campaign', () => {
  it('needs a lease: none is refused with a receipt, one is used, several need task_id', async () => {
    const coordinator = await newMember(server);
    const campaignId = await campaignWith(coordinator, []);
    // A member with no public reading of its own reads only under a lease.
    const worker = await inertMember(server, coordinator, campaignId);

    const none = await read(worker, '/article');
    expect(none.body.error.code).toBe('LEASE_REQUIRED');
    expect(none.body.error.details.policy_receipt_id).toMatch(/^pol_/);
    // The way out is a task, never another read that would be refused the same way.
    expect(none.body.error.allowed_alternatives.map((a: { tool?: string }) => a.tool)).toEqual([
      'task_list',
      'task_claim',
    ]);
    const explained = await callTool(worker.client, 'policy_explain', {
      receipt_id: none.body.error.details.policy_receipt_id,
    });
    expect(explained.body).toMatchObject({ decision: 'DENY', reason_code: 'LEASE_REQUIRED' });
    expect(explained.body.allowed_alternatives).toEqual(none.body.error.allowed_alternatives);

    const first = await claimedTask(coordinator, worker, campaignId);
    const covered = await read(worker, '/article');
    expect(covered.isError, JSON.stringify(covered.body)).toBe(false);
    const record = await ok(worker, 'evidence_get', { evidence_id: covered.body.evidence_id }, false);
    expect(record.evidence).toMatchObject({ task_id: first.taskId, campaign_id: campaignId });

    const second = await claimedTask(coordinator, worker, campaignId);
    const ambiguous = await read(worker, '/article');
    expect(ambiguous.body.error.code).toBe('LEASE_AMBIGUOUS');
    expect(ambiguous.body.error.details.task_ids.sort()).toEqual([first.taskId, second.taskId].sort());
    expect(ambiguous.body.error.allowed_alternatives.map((a: { arguments?: object }) => a.arguments)).toEqual(
      expect.arrayContaining([{ task_id: first.taskId }, { task_id: second.taskId }]),
    );
    expect((await read(worker, '/article', second.taskId)).isError).toBe(false);

    // A task the reader holds no lease on is refused, not stored unchecked.
    const other = await claimedTask(coordinator, coordinator, campaignId);
    expect((await read(worker, '/article', other.taskId)).body.error.code).toBe('LEASE_REQUIRED');
  });

  it('lets a member with public reading of its own read outside any lease, as its own read', async () => {
    const coordinator = await newMember(server);
    const participant = await newMember(server);
    const campaignId = await campaignWith(coordinator, [participant], { visibility: 'SHARED' });

    const own = await read(coordinator, '/article');
    expect(own.isError, JSON.stringify(own.body)).toBe(false);
    const record = await ok(coordinator, 'evidence_get', { evidence_id: own.body.evidence_id }, false);
    expect(record.evidence).toMatchObject({ task_id: null, campaign_id: null });
    // Not filed under the campaign, so not shared with it.
    const seen = await callTool(participant.client, 'evidence_get', { evidence_id: own.body.evidence_id });
    expect(seen.body.error.code).toBe('NOT_FOUND');

    // Once it holds a lease, a read without task_id is filed under that lease, as before.
    const t = await claimedTask(coordinator, coordinator, campaignId);
    const covered = await read(coordinator, '/article');
    const filed = await ok(coordinator, 'evidence_get', { evidence_id: covered.body.evidence_id }, false);
    expect(filed.evidence).toMatchObject({ task_id: t.taskId, campaign_id: campaignId });
  });

  it('shares reads made under a lease with the campaign as its mode says', async () => {
    const coordinator = await newMember(server);
    const p1 = await newMember(server);
    const p2 = await newMember(server);
    const shared = await campaignWith(coordinator, [p1, p2], { visibility: 'SHARED' });
    const t = await claimedTask(coordinator, p1, shared);
    const r = await read(p1, '/article', t.taskId);
    for (const viewer of [coordinator, p2]) {
      const seen = await callTool(viewer.client, 'evidence_get', { evidence_id: r.body.evidence_id });
      expect(seen.isError, JSON.stringify(seen.body)).toBe(false);
    }

    const blind = await campaignWith(coordinator, [p1, p2], { visibility: 'BLIND_EXPERIMENT' });
    const b = await claimedTask(coordinator, p1, blind);
    const hidden = await read(p1, '/article', b.taskId);
    expect(
      (await callTool(coordinator.client, 'evidence_get', { evidence_id: hidden.body.evidence_id })).isError,
    ).toBe(false);
    const other = await callTool(p2.client, 'evidence_get', { evidence_id: hidden.body.evidence_id });
    expect(other.body.error.code).toBe('NOT_FOUND');
    // An outsider never sees campaign evidence.
    const outsider = await newMember(server);
    expect(
      (await callTool(outsider.client, 'evidence_get', { evidence_id: r.body.evidence_id })).body.error.code,
    ).toBe('NOT_FOUND');
  });
});

describe('verified completion', () => {
  it('matches quotations exactly and normalised in HTML and PDF evidence, then ends the lease', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker]);
    const { taskId, leaseId } = await claimedTask(coordinator, worker, campaignId);
    const html = (await read(worker, '/article')).body.evidence_id as string;
    const pdf = (await read(worker, '/doc.pdf')).body.evidence_id as string;

    // The page has curly quotes around "stands for decades"; the summary uses straight ones,
    // and runs two spaces into the PDF quotation: both match after normalising.
    const summary = [
      `Cairns are old: “${ARTICLE_QUOTE}”.`,
      '“A well built cairn "stands for decades"  without mortar” says the guide.',
      `The second source agrees that "${PDF_QUOTE.replace(' open', '  open')}".`,
    ].join(' ');
    const done = await ok(worker, 'task_complete', {
      task_id: taskId,
      lease_id: leaseId,
      evidence_ids: [html, pdf],
      claimed_outcome: 'COMPLETE',
      summary,
    });
    expect(done.status).toBe('VERIFIED');
    expect(done.meaning).toContain('VERIFIED means the configured checks passed');
    expect(done.meaning).toContain('not a claim that the conclusion is true');
    expect(done.unmatched_quotes).toEqual([]);
    expect(done.matched_quotes).toEqual([
      expect.objectContaining({ quote: ARTICLE_QUOTE, evidence_id: html, match: 'EXACT' }),
      expect.objectContaining({ evidence_id: html, match: 'NORMALISED' }),
      expect.objectContaining({ evidence_id: pdf, match: 'NORMALISED', page: 2 }),
    ]);
    expect(done.evidence_completeness).toMatchObject({ attached: 2, complete: true });
    expect(done.next.actor).toBe('COORDINATOR');
    expect(done.task_status).toBe('VERIFIED');

    const beat = await refused(worker, 'task_heartbeat', { task_id: taskId, lease_id: leaseId }, false);
    expect(beat.code).toBe('LEASE_NOT_CURRENT');
    expect((await ok(coordinator, 'task_get', { task_id: taskId }, false)).status).toBe('VERIFIED');

    const again = await ok(coordinator, 'result_verify', { task_id: taskId });
    expect(again).toMatchObject({
      status: 'VERIFIED',
      previous_status: 'VERIFIED',
      submitted_by: worker.agentId,
    });
  });

  it('returns mismatches with the next actor and action, keeps the lease, and accepts a resubmission', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker]);
    const { taskId, leaseId } = await claimedTask(coordinator, worker, campaignId);
    const html = (await read(worker, '/article')).body.evidence_id as string;
    const invented = 'Cairns were invented by the Romans in 1850';
    const first = await ok(worker, 'task_complete', {
      task_id: taskId,
      lease_id: leaseId,
      evidence_ids: [html],
      claimed_outcome: 'COMPLETE',
      summary: `The guide says "${invented}" and "${ARTICLE_QUOTE}".`,
    });
    expect(first.status).toBe('NOT_VERIFIED');
    expect(first.unmatched_quotes).toEqual([expect.objectContaining({ quote: invented })]);
    expect(first.matched_quotes).toEqual([expect.objectContaining({ quote: ARTICLE_QUOTE })]);
    expect(first.next).toMatchObject({ actor: 'WORKER', agent_id: worker.agentId });
    expect(first.next.action).toMatch(/unmatched quotations/);
    expect(first.checks).toContainEqual(
      expect.objectContaining({ check: 'QUOTES_MATCH_EVIDENCE', passed: false }),
    );
    // The lease stays: the worker may go on and resubmit.
    await ok(worker, 'task_heartbeat', { task_id: taskId, lease_id: leaseId }, false);

    const noQuote = await ok(worker, 'task_complete', {
      task_id: taskId,
      lease_id: leaseId,
      evidence_ids: [html],
      claimed_outcome: 'PARTIAL',
      summary: 'Cairns are old, the guide says so.',
    });
    expect(noQuote.status).toBe('NOT_VERIFIED');
    expect(noQuote.checks).toContainEqual(
      expect.objectContaining({ check: 'QUOTATION_PRESENT', passed: false }),
    );
    // The advice is about what failed: there is no quotation, so nothing is "unmatched".
    expect(noQuote.next.action).toMatch(/Quote the source verbatim/);
    expect(noQuote.next.action).not.toMatch(/unmatched/);

    const second = await ok(worker, 'task_complete', {
      task_id: taskId,
      lease_id: leaseId,
      evidence_ids: [html],
      claimed_outcome: 'COMPLETE',
      summary: `The guide says "${ARTICLE_QUOTE}".`,
    });
    expect(second.status).toBe('VERIFIED');
  });

  it('refuses a completion without a recorded source the worker may see', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const stranger = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker]);
    const { taskId, leaseId } = await claimedTask(coordinator, worker, campaignId);
    // The stranger's own read is private to the stranger.
    const foreign = (await read(stranger, '/article')).body.evidence_id as string;
    const res = await callTool(worker.client, 'task_complete', {
      task_id: taskId,
      lease_id: leaseId,
      evidence_ids: [foreign],
      claimed_outcome: 'COMPLETE',
      summary: `"${ARTICLE_QUOTE}"`,
      idempotency_key: key(),
    });
    expect(res.body.error.code).toBe('EVIDENCE_REQUIRED');
    expect(res.body.error.details.evidence.not_usable).toEqual([
      expect.objectContaining({ evidence_id: foreign }),
    ]);
    // Nothing was submitted: the task is still the worker's.
    expect((await ok(worker, 'task_get', { task_id: taskId }, false)).status).toBe('CLAIMED');
  });

  it('hides results from other members under OWNER_ONLY_RESULTS', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker], { visibility: 'OWNER_ONLY_RESULTS' });
    const { taskId, leaseId } = await claimedTask(coordinator, worker, campaignId);
    const html = (await read(worker, '/article')).body.evidence_id as string;
    await ok(worker, 'task_complete', {
      task_id: taskId,
      lease_id: leaseId,
      evidence_ids: [html],
      claimed_outcome: 'COMPLETE',
      summary: `"${ARTICLE_QUOTE}"`,
    });
    const seen = await ok(coordinator, 'task_get', { task_id: taskId }, false);
    expect(seen.status).toBe('VERIFIED');
    expect(seen.submissions ?? []).toEqual([]);
    expect((await refused(coordinator, 'result_verify', { task_id: taskId })).code).toBe('NOT_FOUND');
    expect((await ok(worker, 'task_get', { task_id: taskId }, false)).submissions).toHaveLength(1);
  });

  it('shares evidence with evidence_submit and records it on the ledger once', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker]);
    const t = await claimedTask(coordinator, worker, campaignId);
    const own = (await read(coordinator, '/article', t.taskId)).body;
    expect(own.error.code).toBe('LEASE_REQUIRED');
    const r = (await read(worker, '/doc.pdf')).body.evidence_id as string;
    const first = await ok(worker, 'evidence_submit', { evidence_id: r, note: 'The PDF confirms it.' });
    expect(first).toMatchObject({ evidence_id: r, campaign_id: campaignId, already_shared: true });

    // A read made before joining is private until submitted.
    const newcomer = await newMember(server);
    const before = (await read(newcomer, '/article')).body.evidence_id as string;
    await ok(newcomer, 'campaign_join', { campaign_id: campaignId });
    expect(
      (await callTool(coordinator.client, 'evidence_get', { evidence_id: before })).body.error.code,
    ).toBe('NOT_FOUND');
    const shared = await ok(newcomer, 'evidence_submit', { evidence_id: before });
    expect(shared.already_shared).toBe(false);
    expect((await ok(coordinator, 'evidence_get', { evidence_id: before }, false)).evidence.evidence_id).toBe(
      before,
    );
    const events = await ok(coordinator, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 }, false);
    const submitted = events.events.filter((e: { kind: string }) => e.kind === 'EVIDENCE_SUBMITTED');
    expect(submitted).toEqual([expect.objectContaining({ evidence_ids: [before] })]);
  });
});

describe('results under the visibility modes', () => {
  /** A worker's verified result in a fresh campaign of `visibility`. */
  async function verifiedResult(visibility: string) {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const other = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker, other], { visibility });
    const { taskId, leaseId } = await claimedTask(coordinator, worker, campaignId);
    const html = (await read(worker, '/article')).body.evidence_id as string;
    await ok(worker, 'task_complete', {
      task_id: taskId,
      lease_id: leaseId,
      evidence_ids: [html],
      claimed_outcome: 'COMPLETE',
      summary: `"${ARTICLE_QUOTE}"`,
    });
    return { coordinator, worker, other, campaignId, taskId, html };
  }

  const kinds = async (m: Member, campaignId: string) =>
    (await ok(m, 'events_watch', { campaign_id: campaignId, wait_seconds: 1, limit: 200 }, false)).events.map(
      (e: { kind: string }) => e.kind,
    );

  it("keeps a coordinator's re-check of a blind participant's result from the other participants", async () => {
    const r = await verifiedResult('BLIND_EXPERIMENT');
    const again = await ok(r.coordinator, 'result_verify', { task_id: r.taskId });
    // Someone else's re-check is reported, not stored over the submitter's own.
    expect(again).toMatchObject({ status: 'VERIFIED', stored: false });
    expect(await kinds(r.worker, r.campaignId)).toContain('RESULT_VERIFIED');
    const seen = await kinds(r.other, r.campaignId);
    expect(seen).not.toContain('RESULT_VERIFIED');
    expect(seen).not.toContain('TASK_SUBMITTED');
  });

  it('withholds what others wrote into task_history where the mode hides it', async () => {
    const r = await verifiedResult('OWNER_ONLY_RESULTS');
    const history = await ok(r.coordinator, 'task_history', { task_id: r.taskId }, false);
    const submit = history.entries.find((e: { kind: string }) => e.kind === 'SUBMIT');
    expect(submit.details_withheld).toBe(true);
    expect(submit.after.verified_status).toBeUndefined();
    const own = await ok(r.worker, 'task_history', { task_id: r.taskId }, false);
    const mine = own.entries.find((e: { kind: string }) => e.kind === 'SUBMIT');
    expect(mine.after.verified_status).toBe('VERIFIED');
  });

  it('does not let evidence shared by one campaign travel into another', async () => {
    const r = await verifiedResult('SHARED');
    // The other member sees the worker's read through the first campaign's sharing...
    expect((await ok(r.other, 'evidence_get', { evidence_id: r.html }, false)).evidence.evidence_id).toBe(
      r.html,
    );
    // ...but cannot carry it into a campaign of its own.
    const own = await campaignWith(r.other, []);
    const moved = await refused(r.other, 'evidence_submit', { campaign_id: own, evidence_id: r.html });
    expect(moved.code).toBe('NOT_FOUND');
  });

  it('is not VERIFIED while some quotations went unchecked', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker]);
    const { taskId, leaseId } = await claimedTask(coordinator, worker, campaignId);
    const html = (await read(worker, '/article')).body.evidence_id as string;
    // 31 different true quotations (slices of one sentence of the page): one more than is checked.
    const summary = Array.from({ length: 31 }, (_, k) => `"${ARTICLE_QUOTE.slice(k, k + 22)}"`).join(' ');
    const done = await ok(worker, 'task_complete', {
      task_id: taskId,
      lease_id: leaseId,
      evidence_ids: [html],
      claimed_outcome: 'COMPLETE',
      summary,
    });
    expect(done.unmatched_quotes).toEqual([]);
    expect(done.quotes_not_checked).toBe(1);
    expect(done.status).toBe('NOT_VERIFIED');
    expect(done.checks).toContainEqual(
      expect.objectContaining({ check: 'EVERY_QUOTATION_CHECKED', passed: false }),
    );
  });
});
