import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, claimedTask, type Member, newMember, ok, refused } from '../support/campaigns.ts';
import { ownerImport } from '../support/research.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Issue 16 item 3: finding_create, finding_get, finding_list and finding_review, with visibility by mode. */

let server: TestServer;
let lead: Member; // owner A
let author: Member; // owner B
let sibling: Member; // owner B too
let reviewer: Member; // owner C
let campaignId: string;
let sourceId: string;

const ADVISORY =
  'Advisory CAIRN-7: the moorland parser accepts crafted headers in versions 2.0 to 2.4 of libmoor. Fixed in 2.5.';

/** The owner's text import into a campaign (test/support/research.ts). */
const importInto = (owner: Member, campaign: string, text: string, extra: Record<string, unknown> = {}) =>
  ownerImport(server, owner, { text, campaign_id: campaign, ...extra });

beforeAll(async () => {
  server = await startTestServer();
  lead = await newMember(server);
  author = await newMember(server);
  sibling = await newMember(server, author.ownerEmail);
  reviewer = await newMember(server);
  campaignId = await campaignWith(lead, [author, sibling, reviewer]);
  sourceId = await importInto(lead, campaignId, ADVISORY, { source_date: '2020-01-01' });
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const create = (m: Member, extra: Record<string, unknown> = {}, campaign = campaignId) =>
  ok(m, 'finding_create', {
    campaign_id: campaign,
    claim: 'libmoor 2.0-2.4 mis-parses crafted headers.',
    evidence_ids: [sourceId],
    ...extra,
  });
const review = (findingId: string, verdict: string, rationale: string, evidence = [sourceId]) => ({
  campaign_id: campaignId,
  finding_id: findingId,
  verdict,
  rationale,
  evidence_ids: evidence,
});

describe('finding_create', () => {
  it('records the claim with its lists; the finding id is an evidence id others can cite and locate in', async () => {
    const f = await create(author, {
      affected_versions: ['libmoor 2.0-2.4'],
      unknowns: ['Whether 1.x is affected.'],
      contradictions: ['The changelog of 2.3 claims a header fix.'],
      source_max_age_days: 365,
    });
    expect(f.finding_id).toMatch(/^evd_/);
    expect(f.evidence_id).toBe(f.finding_id);
    expect(f).toMatchObject({
      status: 'UNREVIEWED',
      affected_versions: ['libmoor 2.0-2.4'],
      evidence_ids: [sourceId],
    });
    expect(f.source_age_warnings).toEqual([
      expect.objectContaining({
        code: 'SOURCE_TOO_OLD',
        evidence_id: sourceId,
        basis: 'source_date',
        max_age_days: 365,
      }),
    ]);
    expect(f.next_steps[0]).toMatchObject({
      tool: 'finding_review',
      arguments: { finding_id: f.finding_id },
    });
    const asEvidence = await ok(reviewer, 'evidence_get', { evidence_id: f.finding_id }, false);
    expect(asEvidence.evidence).toMatchObject({ provenance: 'AGENT_SUBMITTED', content_kind: 'finding' });
    const located = await ok(
      reviewer,
      'evidence_locate',
      { evidence_id: f.finding_id, quote: 'Whether 1.x is affected' },
      false,
    );
    expect(located.found).toBe(true);
    // A later finding cites the first one like any source.
    const later = await create(reviewer, {
      claim: 'Builds on the first finding.',
      evidence_ids: [f.finding_id],
    });
    expect(later.evidence_ids).toEqual([f.finding_id]);
  });

  it('warns about no source younger than the limit, and refuses evidence the author cannot see here', async () => {
    expect((await create(author, { source_max_age_days: 36_500 })).source_age_warnings).toEqual([]);
    const elsewhere = await campaignWith(reviewer, []);
    const hidden = await importInto(reviewer, elsewhere, 'Another campaign only.');
    const err = await refused(author, 'finding_create', {
      campaign_id: campaignId,
      claim: 'x',
      evidence_ids: [hidden],
    });
    expect(err.code).toBe('NOT_FOUND');
    expect(err.details).toMatchObject({ evidence_id: hidden });
    expect(
      (await refused(author, 'finding_create', { campaign_id: campaignId, claim: 'x', evidence_ids: [] }))
        .code,
    ).toBe('VALIDATION_FAILED');
  });
});

describe('finding_review', () => {
  let findingId: string;
  beforeAll(async () => {
    findingId = (await create(author)).finding_id;
  });

  it('refuses the author, and another identity of the same owner', async () => {
    expect(
      (await refused(author, 'finding_review', review(findingId, 'SUPPORTED', 'Looks right.'))).code,
    ).toBe('SELF_REVIEW');
    const same = await refused(sibling, 'finding_review', review(findingId, 'SUPPORTED', 'Looks right.'));
    expect(same.code).toBe('SAME_OWNER_REVIEW');
    expect(same.next_action).toBeTruthy();
  });

  it('refuses a quotation the cited evidence does not hold, storing nothing', async () => {
    const err = await refused(
      reviewer,
      'finding_review',
      review(findingId, 'SUPPORTED', 'The advisory says "every version of libmoor is affected forever".'),
    );
    expect(err.code).toBe('QUOTE_NOT_IN_EVIDENCE');
    // More quotations than a check covers are refused, never left partly unchecked.
    const many = Array.from({ length: 31 }, (_, i) => `"quotation number ${i} of the rationale"`).join(' ');
    const tooMany = await refused(reviewer, 'finding_review', review(findingId, 'SUPPORTED', many));
    expect(tooMany.code).toBe('VALIDATION_FAILED');
    expect(tooMany.details).toMatchObject({ quotes: 31, max_quotes: 30 });
    expect(
      (await ok(reviewer, 'finding_get', { campaign_id: campaignId, finding_id: findingId }, false)).reviews,
    ).toEqual([]);
  });

  it('takes an independent review with checked quotes; the status follows the reviews; one review each', async () => {
    const done = await ok(
      reviewer,
      'finding_review',
      review(findingId, 'SUPPORTED', 'The advisory says "accepts crafted headers in versions 2.0 to 2.4".'),
    );
    expect(done).toMatchObject({ status: 'SUPPORTED', review: { verdict: 'SUPPORTED' } });
    expect(done.status_meaning).toContain('peer assessment');
    expect(done.review.matched_quotes[0]).toMatchObject({ evidence_id: sourceId });
    expect(
      (await refused(reviewer, 'finding_review', review(findingId, 'CONTESTED', 'Changed my mind.'))).code,
    ).toBe('ALREADY_REVIEWED');
    const contested = await ok(
      lead,
      'finding_review',
      review(findingId, 'CONTESTED', 'The 2.3 changelog disagrees.'),
    );
    expect(contested.status).toBe('CONTESTED');
    const got = await ok(author, 'finding_get', { campaign_id: campaignId, finding_id: findingId }, false);
    expect(got.reviews.map((r: { verdict: string }) => r.verdict)).toEqual(['SUPPORTED', 'CONTESTED']);
    const events = await ok(author, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 }, false);
    const kinds = events.events.map((e: { kind: string }) => e.kind);
    expect(kinds).toContain('FINDING_CREATED');
    expect(kinds).toContain('FINDING_REVIEWED');
  });
});

describe('finding_list', () => {
  it('filters by status, author and words, and pages with a signed cursor', async () => {
    const tagged = await create(sibling, { claim: 'Heather beetles chew the parser cables.' });
    const byWords = await ok(
      sibling,
      'finding_list',
      { campaign_id: campaignId, q: 'heather BEETLES' },
      false,
    );
    expect(byWords.findings.map((f: { finding_id: string }) => f.finding_id)).toEqual([tagged.finding_id]);
    const contested = await ok(
      sibling,
      'finding_list',
      { campaign_id: campaignId, status: 'CONTESTED' },
      false,
    );
    expect(contested.findings.every((f: { status: string }) => f.status === 'CONTESTED')).toBe(true);
    expect(contested.findings.length).toBeGreaterThan(0);
    const mine = await ok(
      sibling,
      'finding_list',
      { campaign_id: campaignId, author: sibling.agentId },
      false,
    );
    expect(mine.findings.map((f: { finding_id: string }) => f.finding_id)).toEqual([tagged.finding_id]);
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await ok(
        sibling,
        'finding_list',
        { campaign_id: campaignId, limit: 2, ...(cursor ? { cursor } : {}) },
        false,
      );
      for (const f of page.findings) {
        expect(seen.has(f.finding_id)).toBe(false);
        seen.add(f.finding_id);
      }
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen.size).toBeGreaterThanOrEqual(5);
    const forged = await refused(
      sibling,
      'finding_list',
      { campaign_id: campaignId, cursor: 'abc.def' },
      false,
    );
    expect(forged.code).toBe('CURSOR_INVALID');
  });
});

describe('visibility modes', () => {
  it("BLIND_EXPERIMENT: a participant's finding and review are hidden from other participants, not from coordinators", async () => {
    const coordinator = await newMember(server);
    const one = await newMember(server);
    const two = await newMember(server);
    const blind = await campaignWith(coordinator, [one, two], { visibility: 'BLIND_EXPERIMENT' });
    const brief = await importInto(
      coordinator,
      blind,
      'Brief: the moorland parser accepts crafted headers in 2.x.',
    );
    const f = await create(one, { claim: 'Blind claim.', evidence_ids: [brief] }, blind);
    expect(
      (await refused(two, 'finding_get', { campaign_id: blind, finding_id: f.finding_id }, false)).code,
    ).toBe('NOT_FOUND');
    expect((await ok(two, 'finding_list', { campaign_id: blind }, false)).findings).toEqual([]);
    expect((await refused(two, 'evidence_get', { evidence_id: f.finding_id }, false)).code).toBe('NOT_FOUND');
    const seen = await ok(
      coordinator,
      'finding_get',
      { campaign_id: blind, finding_id: f.finding_id },
      false,
    );
    expect(seen.claim).toBe('Blind claim.');
    // A participant's review of the coordinator's finding is that participant's own work too.
    const shared = await create(coordinator, { claim: 'Coordinator claim.', evidence_ids: [brief] }, blind);
    await ok(one, 'finding_review', {
      campaign_id: blind,
      finding_id: shared.finding_id,
      verdict: 'SUPPORTED',
      rationale: 'Matches the brief.',
      evidence_ids: [brief],
    });
    const byTwo = await ok(two, 'finding_get', { campaign_id: blind, finding_id: shared.finding_id }, false);
    expect(byTwo.reviews).toEqual([]);
    // Nor does the status tell another participant's verdict.
    expect(byTwo.status).toBe('UNREVIEWED');
    const supported = await ok(two, 'finding_list', { campaign_id: blind, status: 'SUPPORTED' }, false);
    expect(supported.findings).toEqual([]);
    const unreviewed = await ok(two, 'finding_list', { campaign_id: blind, status: 'UNREVIEWED' }, false);
    expect(unreviewed.findings.map((f: { finding_id: string }) => f.finding_id)).toContain(shared.finding_id);
    const byLead = await ok(
      coordinator,
      'finding_get',
      { campaign_id: blind, finding_id: shared.finding_id },
      false,
    );
    expect(byLead.reviews).toHaveLength(1);
    expect(byLead.status).toBe('SUPPORTED');
  });

  it('TASK_SCOPED: a finding for a task is seen by those involved in it, not by a bystander', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const bystander = await newMember(server);
    const scoped = await campaignWith(coordinator, [worker, bystander], { visibility: 'TASK_SCOPED' });
    const brief = await importInto(coordinator, scoped, 'Brief for everyone in the scoped campaign.');
    const { taskId } = await claimedTask(coordinator, worker, scoped);
    const f = await create(
      worker,
      { claim: 'Scoped claim.', evidence_ids: [brief], task_id: taskId },
      scoped,
    );
    expect(f.task_id).toBe(taskId);
    expect(
      (await refused(bystander, 'finding_get', { campaign_id: scoped, finding_id: f.finding_id }, false))
        .code,
    ).toBe('NOT_FOUND');
    expect(
      (await ok(coordinator, 'finding_get', { campaign_id: scoped, finding_id: f.finding_id }, false))
        .task_id,
    ).toBe(taskId);
  });

  it('a non-member sees nothing of it (an identity in no campaign is not even offered the tool)', async () => {
    const stranger = await newMember(server);
    const f = await create(author);
    expect((await refused(stranger, 'evidence_get', { evidence_id: f.finding_id }, false)).code).toBe(
      'NOT_FOUND',
    );
    expect(
      (await refused(stranger, 'finding_get', { campaign_id: campaignId, finding_id: f.finding_id }, false))
        .code,
    ).toBe('TOOL_NOT_AVAILABLE');
  });
});

describe('what a finding or review cites joins the campaign for its readers', () => {
  it("shares the author's and the reviewer's own evidence from elsewhere under the finding's task, not their old one", async () => {
    const coordinator = await newMember(server);
    const writer = await newMember(server);
    const checker = await newMember(server);
    const bystander = await newMember(server);
    const scoped = await campaignWith(coordinator, [writer, checker, bystander], {
      visibility: 'TASK_SCOPED',
    });
    // Each brings a file made for a task of another campaign of its own.
    const fileFrom = async (m: Member, text: string) => {
      const elsewhere = await campaignWith(m, []);
      const { taskId } = await claimedTask(m, m, elsewhere);
      const made = await ok(m, 'evidence_submit', { campaign_id: elsewhere, text, task_id: taskId });
      return made.evidence_id as string;
    };
    const source = await fileFrom(writer, 'Field notes: curlews returned to the western fell in March.');
    const f = await create(writer, { claim: 'Curlews returned in March.', evidence_ids: [source] }, scoped);
    expect((await ok(bystander, 'evidence_get', { evidence_id: source }, false)).evidence.evidence_id).toBe(
      source,
    );
    const check = await fileFrom(checker, 'Survey log: curlews counted on the western fell on 14 March.');
    await ok(checker, 'finding_review', {
      campaign_id: scoped,
      finding_id: f.finding_id,
      verdict: 'SUPPORTED',
      rationale: 'My log says "curlews counted on the western fell on 14 March".',
      evidence_ids: [check],
    });
    expect((await ok(writer, 'evidence_get', { evidence_id: check }, false)).evidence.evidence_id).toBe(
      check,
    );
  });
});
