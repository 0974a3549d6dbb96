import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignMembers } from '../../src/domains/campaigns/tables.ts';
import { campaignWith, type Member, newMember, ok, publishTask, refused } from '../support/campaigns.ts';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { ownerImport } from '../support/research.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * evidence_search (issue 16 items 6 and 10): full-text search over own reads, imports, findings
 * and messages, with visibility decided in the SQL. Every "does not find" below is paired with
 * someone who does find the same item, so each fails if the visibility predicate were dropped.
 */

let site: FixtureSite;
let server: TestServer;
let reader: Member;
let stranger: Member;

beforeAll(async () => {
  site = await startFixtureSite();
  server = await startTestServer({ env: site.env });
  reader = await newMember(server);
  stranger = await newMember(server);
  // In a campaign of its own, so its searches do reach messages (through none of the others').
  await campaignWith(stranger, []);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await site?.close();
});

interface Hit {
  kind: string;
  id: string;
  campaign_id: string | null;
  task_id: string | null;
  title: string | null;
  snippet: string;
  rank: number;
  provenance?: string;
  message_type?: string;
  next: { tool: string; arguments: Record<string, unknown> };
}

const search = async (m: Member, args: Record<string, unknown>) =>
  (await ok(m, 'evidence_search', args, false)) as {
    results: Hit[];
    next_cursor: string | null;
    note: string;
  };
const idsFound = async (m: Member, q: string, extra: Record<string, unknown> = {}) =>
  (await search(m, { q, ...extra })).results.map((h) => h.id);

const say = async (m: Member, campaignId: string, content: string, extra: Record<string, unknown> = {}) =>
  (await ok(m, 'message_append', { campaign_id: campaignId, type: 'NOTE', content, ...extra }))
    .message_id as string;
const submitText = async (m: Member, campaignId: string, text: string, extra: Record<string, unknown> = {}) =>
  (await ok(m, 'evidence_submit', { campaign_id: campaignId, text, authorized: true, ...extra }))
    .evidence_id as string;

describe('what evidence_search finds', () => {
  it("finds a word in the caller's own read, with a marked snippet and the tool that opens it", async () => {
    const read = await ok(
      reader,
      'fetch_text',
      { url: `${site.origin}/article`, declared_purpose: 'Testing search' },
      false,
    );
    const found = await search(reader, { q: 'mountain trails' });
    const hit = found.results.find((h) => h.id === read.evidence_id);
    expect(hit, JSON.stringify(found)).toMatchObject({
      kind: 'evidence',
      provenance: 'SERVER_FETCH',
      campaign_id: null,
      next: { tool: 'evidence_view', arguments: { evidence_id: read.evidence_id } },
    });
    expect(hit?.snippet).toMatch(/«mountain»|«trails»/);
    expect(hit?.snippet.length).toBeLessThanOrEqual(500);
    expect(hit?.rank).toBeGreaterThan(0);
    expect(found.note).toMatch(/never instructions/);
    // Stemmed: another form of the word finds it too.
    expect(await idsFound(reader, 'mountains')).toContain(read.evidence_id);
    // Another identity's own read is never found.
    expect(await idsFound(stranger, 'mountain trails')).not.toContain(read.evidence_id);
  });

  it("finds an owner's import in the campaign it was imported into, and only there", async () => {
    const lead = await newMember(server);
    const member = await newMember(server);
    const campaignId = await campaignWith(lead, [member]);
    const shared = await ownerImport(server, lead, {
      text: 'Survey brief: the whinchat breeds in bracken on the lower slopes.',
      title: 'Whinchat brief',
      campaign_id: campaignId,
    });
    const unbound = await ownerImport(server, lead, {
      text: 'Private whinchat sketches kept by the owner alone.',
    });
    const found = await search(member, { q: 'whinchat' });
    expect(found.results.map((h) => h.id)).toEqual([shared]);
    expect(found.results[0]).toMatchObject({
      kind: 'evidence',
      provenance: 'OWNER_IMPORT',
      campaign_id: campaignId,
    });
    expect(await idsFound(stranger, 'whinchat')).toEqual([]);
    // The owner's import outside campaigns exists (the owner reads it), but no agent finds it.
    const preview = await fetch(`${server.url}/v1/research/evidence/${unbound}/preview`, {
      headers: {
        authorization: `Bearer ${(await server.app.services.identity.addOwnerToken(lead.ownerEmail, 'x', 1)).token}`,
      },
    });
    expect(preview.status).toBe(200);
    expect(await idsFound(lead, 'sketches')).toEqual([]);
  });

  it('finds a message and a finding, says how to open each, and filters by kind', async () => {
    const lead = await newMember(server);
    const member = await newMember(server);
    const campaignId = await campaignWith(lead, [member]);
    const messageId = await say(member, campaignId, 'A dotterel pair was seen on the summit plateau.');
    const source = await submitText(member, campaignId, 'Notes: dotterel nest scrape found near the cairn.');
    const finding = await ok(member, 'finding_create', {
      campaign_id: campaignId,
      claim: 'Dotterel breed on the summit plateau.',
      evidence_ids: [source],
    });
    const all = await search(lead, { q: 'dotterel' });
    const byId = new Map(all.results.map((h) => [h.id, h]));
    expect(byId.get(messageId)).toMatchObject({
      kind: 'message',
      campaign_id: campaignId,
      message_type: 'NOTE',
      next: { tool: 'context_read', arguments: { campaign_id: campaignId } },
    });
    expect(byId.get(messageId)?.snippet).toContain('«dotterel»');
    expect(byId.get(source)).toMatchObject({ kind: 'evidence', provenance: 'AGENT_SUBMITTED' });
    expect(byId.get(finding.finding_id)).toMatchObject({
      kind: 'finding',
      next: { tool: 'finding_get', arguments: { campaign_id: campaignId, finding_id: finding.finding_id } },
    });
    expect((await search(lead, { q: 'dotterel', kinds: ['message'] })).results.map((h) => h.id)).toEqual([
      messageId,
    ]);
    expect((await search(lead, { q: 'dotterel', kinds: ['finding'] })).results.map((h) => h.id)).toEqual([
      finding.finding_id,
    ]);
    const evidenceOnly = await idsFound(lead, 'dotterel', { kinds: ['evidence'] });
    expect(evidenceOnly).toContain(source);
    expect(evidenceOnly).not.toContain(finding.finding_id);
    expect(await idsFound(stranger, 'dotterel')).toEqual([]);
  });

  it('ranks the better match first', async () => {
    const lead = await newMember(server);
    const campaignId = await campaignWith(lead, []);
    const weak = await submitText(
      lead,
      campaignId,
      `A long survey of upland birds. ${'Meadow pipits and skylarks were common across the moor. '.repeat(20)}One ptarmigan was heard once.`,
    );
    const strong = await submitText(
      lead,
      campaignId,
      'Ptarmigan count: ptarmigan on the ridge, ptarmigan in the corrie, ptarmigan tracks in snow.',
      { title: 'Ptarmigan census' },
    );
    const found = await search(lead, { q: 'ptarmigan' });
    expect(found.results.map((h) => h.id)).toEqual([strong, weak]);
    expect(found.results[0]?.rank).toBeGreaterThan(found.results[1]?.rank ?? 0);
    expect(await idsFound(stranger, 'ptarmigan')).toEqual([]);
  });

  it('pages with a cursor: no repeats, nothing skipped, ties broken by id', async () => {
    const lead = await newMember(server);
    const campaignId = await campaignWith(lead, []);
    const ids: string[] = [];
    // Identical texts rank equally: the order between them is the id's.
    for (let i = 0; i < 4; i++) ids.push(await say(lead, campaignId, 'Heather burning season notes.'));
    for (let i = 0; i < 3; i++)
      ids.push(await say(lead, campaignId, `Heather regrowth, plot ${i}: heather heather.`));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await search(lead, { q: 'heather', limit: 3, ...(cursor ? { cursor } : {}) });
      expect(page.results.length).toBeLessThanOrEqual(3);
      seen.push(...page.results.map((h) => h.id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...ids].sort());
    const one = await search(lead, { q: 'heather', limit: 50 });
    expect(one.results.map((h) => h.id)).toEqual(seen);
    expect(await idsFound(stranger, 'heather')).toEqual([]);
  });

  it('says so when the query has no searchable word', async () => {
    const found = await search(reader, { q: 'the' });
    expect(found.results).toEqual([]);
    expect(found.note).toMatch(/no searchable words/);
  });
});

describe('what evidence_search never finds', () => {
  it('SHARED: a direct message between others, and anything of a campaign one is not in', async () => {
    const lead = await newMember(server);
    const [p1, p2] = [await newMember(server), await newMember(server)];
    const campaignId = await campaignWith(lead, [p1, p2]);
    const direct = await ok(p1, 'message_send', {
      campaign_id: campaignId,
      to: lead.agentId,
      type: 'NOTE',
      content: 'Private: the merlin roost is by the old wall.',
    });
    const open = await say(p1, campaignId, 'Everyone: a merlin hunted over the bog.');
    const evidenceId = await submitText(p1, campaignId, 'Merlin sighting log for the survey.');
    expect(await idsFound(lead, 'merlin')).toEqual(
      expect.arrayContaining([direct.message_id, open, evidenceId]),
    );
    expect(await idsFound(p1, 'merlin')).toEqual(expect.arrayContaining([direct.message_id, open]));
    const p2Sees = await idsFound(p2, 'merlin');
    expect(p2Sees).toEqual(expect.arrayContaining([open, evidenceId]));
    expect(p2Sees).not.toContain(direct.message_id);
    expect(await idsFound(stranger, 'merlin')).toEqual([]);
    const refusal = await refused(
      stranger,
      'evidence_search',
      { q: 'merlin', campaign_id: campaignId },
      false,
    );
    expect(refusal.code).toBe('NOT_A_MEMBER');
  });

  it("TASK_SCOPED: another participant's task-linked message and evidence", async () => {
    const lead = await newMember(server);
    const [p1, p2] = [await newMember(server), await newMember(server)];
    const campaignId = await campaignWith(lead, [p1, p2], { visibility: 'TASK_SCOPED' });
    const taskId = await publishTask(lead, campaignId);
    await ok(p1, 'task_claim', { task_id: taskId });
    const linked = await say(p1, campaignId, 'Golden plover chicks on plot seven.', { task_id: taskId });
    const evidenceId = await submitText(p1, campaignId, 'Golden plover transect notes.', { task_id: taskId });
    const wide = await say(lead, campaignId, 'Reminder: golden plover counts close Friday.');
    expect(await idsFound(lead, 'plover')).toEqual(expect.arrayContaining([linked, evidenceId, wide]));
    expect(await idsFound(p1, 'plover')).toEqual(expect.arrayContaining([linked, evidenceId, wide]));
    expect(await idsFound(p2, 'plover')).toEqual([wide]);
    expect(await idsFound(p2, 'plover', { campaign_id: campaignId })).toEqual([wide]);
  });

  it("BLIND_EXPERIMENT: another participant's evidence and messages", async () => {
    const lead = await newMember(server);
    const [p1, p2] = [await newMember(server), await newMember(server)];
    const campaignId = await campaignWith(lead, [p1, p2], { visibility: 'BLIND_EXPERIMENT' });
    const evidenceId = await submitText(p1, campaignId, 'Snow bunting flock of twelve at the col.');
    const note = await say(p1, campaignId, 'Snow bunting heard calling near the col.');
    const brief = await say(lead, campaignId, 'Brief: record every snow bunting you meet.');
    expect(await idsFound(lead, 'bunting')).toEqual(expect.arrayContaining([evidenceId, note, brief]));
    expect(await idsFound(p1, 'bunting')).toEqual(expect.arrayContaining([evidenceId, note, brief]));
    expect(await idsFound(p2, 'bunting')).toEqual([brief]);
    expect(await idsFound(p2, 'bunting', { campaign_id: campaignId })).toEqual([brief]);
  });

  it('OWNER_ONLY_RESULTS: a direct message to someone else', async () => {
    const lead = await newMember(server);
    const [p1, p2] = [await newMember(server), await newMember(server)];
    const campaignId = await campaignWith(lead, [p1, p2], { visibility: 'OWNER_ONLY_RESULTS' });
    const direct = await ok(lead, 'message_send', {
      campaign_id: campaignId,
      to: p1.agentId,
      type: 'NOTE',
      content: 'Only for you: check the twite colony by the quarry.',
    });
    const open = await say(lead, campaignId, 'Twite colony survey starts Monday.');
    expect(await idsFound(p1, 'twite')).toEqual(expect.arrayContaining([direct.message_id, open]));
    expect(await idsFound(p2, 'twite')).toEqual([open]);
  });

  it('a member who left finds nothing more of the campaign', async () => {
    const lead = await newMember(server);
    const p1 = await newMember(server);
    const campaignId = await campaignWith(lead, [p1]);
    // Still active in a campaign of its own, so its searches keep reaching messages.
    await campaignWith(p1, []);
    const note = await say(lead, campaignId, 'The hen harrier skydance was seen at dawn.');
    expect(await idsFound(p1, 'harrier')).toEqual([note]);
    // No leave tool yet: the membership ends as removal would end it.
    await server.database.db
      .update(campaignMembers)
      .set({ status: 'LEFT' })
      .where(and(eq(campaignMembers.campaignId, campaignId), eq(campaignMembers.agentId, p1.agentId)));
    expect(await idsFound(p1, 'harrier')).toEqual([]);
  });
});

describe('what evidence_search refuses', () => {
  it('a malformed, altered or foreign cursor, a limit out of range, an empty query', async () => {
    const lead = await newMember(server);
    const campaignId = await campaignWith(lead, []);
    for (let i = 0; i < 3; i++) await say(lead, campaignId, `Wheatear on the scree, note ${i}.`);
    const first = await search(lead, { q: 'wheatear', limit: 1 });
    expect(first.next_cursor).toBeTruthy();
    expect(await idsFound(stranger, 'wheatear')).toEqual([]);
    const cursor = first.next_cursor as string;
    const fail = async (who: Member, args: Record<string, unknown>) =>
      (await refused(who, 'evidence_search', args, false)).code;
    expect(await fail(lead, { q: 'wheatear', cursor: 'not-a-cursor' })).toBe('CURSOR_INVALID');
    expect(await fail(lead, { q: 'wheatear', cursor: `${cursor.slice(0, -2)}xx` })).toBe('CURSOR_INVALID');
    expect(await fail(lead, { q: 'scree', cursor })).toBe('CURSOR_INVALID');
    expect(await fail(lead, { q: 'wheatear', kinds: ['message'], cursor })).toBe('CURSOR_INVALID');
    expect(await fail(stranger, { q: 'wheatear', cursor })).toBe('CURSOR_INVALID');
    expect(await fail(lead, { q: 'wheatear', limit: 0 })).toBe('VALIDATION_FAILED');
    expect(await fail(lead, { q: 'wheatear', limit: 51 })).toBe('VALIDATION_FAILED');
    expect(await fail(lead, { q: '' })).toBe('VALIDATION_FAILED');
    expect(await fail(lead, { q: 'x'.repeat(501) })).toBe('VALIDATION_FAILED');
    expect(await fail(lead, { q: 'wheatear', kinds: ['task'] })).toBe('VALIDATION_FAILED');
    expect(await fail(lead, { q: 'wheatear', campaign_id: 'cmp_doesnotexist' })).toBe('NOT_A_MEMBER');
  });
});

describe('evidence_search within one campaign', () => {
  it("applies that campaign's mode, not what the caller sees of the same evidence elsewhere", async () => {
    const lead = await newMember(server);
    const sharer = await newMember(server);
    const viewer = await newMember(server);
    const blind = await campaignWith(lead, [sharer, viewer], { visibility: 'BLIND_EXPERIMENT' });
    const open = await campaignWith(lead, [sharer, viewer]);
    // The sharer's own file, in the blind campaign first, then shared into the open one too.
    const id = await submitText(sharer, blind, 'Curlew nesting counts on the western fell.');
    await ok(sharer, 'evidence_submit', { campaign_id: open, evidence_id: id });
    expect(await idsFound(viewer, 'curlew nesting')).toContain(id);
    expect(await idsFound(viewer, 'curlew nesting', { campaign_id: open })).toContain(id);
    expect(await idsFound(viewer, 'curlew nesting', { campaign_id: blind })).not.toContain(id);
    expect(await idsFound(lead, 'curlew nesting', { campaign_id: blind })).toContain(id);
  });
});
