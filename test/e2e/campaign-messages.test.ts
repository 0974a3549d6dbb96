import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  listEventsForOwner,
  listMessagesForOwner,
  postOwnerComment,
} from '../../src/domains/campaigns/index.ts';
import { campaigns } from '../../src/domains/campaigns/tables.ts';
import { DomainError } from '../../src/kernel/errors.ts';
import { campaignWith, key, type Member, newMember, ok, refused } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Issue 5 item 7 (messages, proposals, decisions) and the visibility matrix of messages and the ledger. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const MODES = ['SHARED', 'TASK_SCOPED', 'BLIND_EXPERIMENT', 'OWNER_ONLY_RESULTS'] as const;

async function team(visibility: (typeof MODES)[number] = 'SHARED') {
  const c = await newMember(server);
  const p1 = await newMember(server);
  const p2 = await newMember(server);
  const campaignId = await campaignWith(c, [p1, p2], { visibility });
  return { c, p1, p2, campaignId };
}

async function campaignRow(id: string) {
  const [row] = await server.database.db.select().from(campaigns).where(eq(campaigns.id, id));
  if (!row) throw new Error(`no campaign ${id}`);
  return row;
}

const note = (m: Member, campaignId: string, content: string, extra: Record<string, unknown> = {}) =>
  ok(m, 'message_append', { campaign_id: campaignId, type: 'NOTE', content, ...extra });

/** Ids of the messages `m` can read through context_read (all pages). */
async function readableIds(m: Member, campaignId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await ok(
      m,
      'context_read',
      { campaign_id: campaignId, limit: 50, ...(cursor ? { cursor } : {}) },
      false,
    );
    ids.push(...page.messages.map((x: { message_id: string }) => x.message_id));
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return ids;
}

/** Message ids of the message events `m` can watch, from the start of the ledger. */
async function watchedIds(m: Member, campaignId: string): Promise<string[]> {
  const res = await ok(m, 'events_watch', { campaign_id: campaignId, wait_seconds: 1, limit: 200 }, false);
  return res.events
    .filter((e: { message_id: string | null }) => e.message_id)
    .map((e: { message_id: string }) => e.message_id);
}

/** A task `p1` is involved in (reserved for it, and it holds the lease), through the real task tools. */
async function taskHeldBy(c: Member, p1: Member, campaignId: string): Promise<string> {
  const published = await ok(c, 'task_publish', {
    campaign_id: campaignId,
    assignee_id: p1.agentId,
    title: 'Count curlews',
    objective: 'Count the curlews on the moor.',
    acceptance: 'A count with sources.',
    conditions: {
      available_data: 'Public survey pages.',
      authorized_scope: 'Public web pages only.',
      deliverable: 'A count.',
      reproduction_steps: 'Read the cited pages.',
      time_budget_minutes: 60,
      stop_conditions: 'Stop when no public source exists.',
      reviewer: 'the coordinator',
    },
  });
  await ok(p1, 'task_claim', { task_id: published.task_id });
  return published.task_id as string;
}

describe('message_append', () => {
  it('records a campaign-wide note with a ledger event, and returns {message_id, seq, created_at}', async () => {
    const { c, p1, p2, campaignId } = await team();
    const posted = await note(p1, campaignId, 'Curlews nest on the upper moor.');
    expect(posted).toEqual({
      message_id: expect.stringMatching(/^msg_/),
      seq: expect.any(Number),
      created_at: expect.any(String),
    });
    const page = await ok(p2, 'context_read', { campaign_id: campaignId }, false);
    expect(page.messages[0]).toMatchObject({
      message_id: posted.message_id,
      type: 'NOTE',
      from: { agent_id: p1.agentId },
      content: 'Curlews nest on the upper moor.',
      addressed_to: null,
    });
    const watched = await ok(c, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 }, false);
    const event = watched.events.find((e: { message_id: string }) => e.message_id === posted.message_id);
    expect(event).toMatchObject({
      seq: posted.seq,
      kind: 'MESSAGE_POSTED',
      actor: { agent_id: p1.agentId, role: 'PARTICIPANT' },
      addressed_to: null,
      payload: { message: { message_id: posted.message_id, content: 'Curlews nest on the upper moor.' } },
    });
  });

  it('takes 8,000 characters and 16 KiB of UTF-8, and refuses more, naming the limit', async () => {
    const { p1, campaignId } = await team();
    await note(p1, campaignId, 'a'.repeat(8_000));
    await note(p1, campaignId, '€'.repeat(5_000)); // 15,000 bytes
    const tooLong = await refused(p1, 'message_append', {
      campaign_id: campaignId,
      type: 'NOTE',
      content: 'a'.repeat(8_001),
    });
    expect(tooLong.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(tooLong.details.detail)).toContain('8000');
    // 6,000 characters (within 8,000) but 18,000 bytes.
    const tooBig = await refused(p1, 'message_append', {
      campaign_id: campaignId,
      type: 'NOTE',
      content: '€'.repeat(6_000),
    });
    expect(tooBig.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(tooBig.details.detail)).toContain('16384 bytes');
    for (const content of ['   ', 'bell\u0007']) {
      expect(
        (await refused(p1, 'message_append', { campaign_id: campaignId, type: 'NOTE', content })).code,
      ).toBe('VALIDATION_FAILED');
    }
    const secret = await refused(p1, 'message_append', {
      campaign_id: campaignId,
      type: 'NOTE',
      content: `my key is cd_prj_${'a'.repeat(52)}`,
    });
    expect(secret.code).toBe('CREDENTIAL_IN_INPUT');
  });

  it('addresses one active member only; a direct message reaches its author, its addressee and the owner', async () => {
    const { c, p1, p2, campaignId } = await team();
    const direct = await ok(p1, 'message_send', {
      campaign_id: campaignId,
      to: p2.agentId,
      type: 'QUESTION',
      content: 'Did you see the merlin?',
    });
    expect(await readableIds(p1, campaignId)).toContain(direct.message_id);
    expect(await readableIds(p2, campaignId)).toContain(direct.message_id);
    expect(await readableIds(c, campaignId)).not.toContain(direct.message_id);
    expect(await watchedIds(p2, campaignId)).toContain(direct.message_id);
    expect(await watchedIds(c, campaignId)).not.toContain(direct.message_id);
    const owner = await listMessagesForOwner(server.database.db, await campaignRow(campaignId), 50);
    expect(owner.messages.map((x) => x.message_id)).toContain(direct.message_id);

    const outsider = await newMember(server);
    const notMember = await refused(p1, 'message_append', {
      campaign_id: campaignId,
      type: 'NOTE',
      content: 'hello',
      addressed_to: outsider.agentId,
    });
    expect(notMember.code).toBe('RECIPIENT_NOT_MEMBER');
    expect(notMember.details.next_step).toEqual(expect.any(String));
    // Invited is not yet a member.
    const invitee = await newMember(server, c.ownerEmail);
    await ok(c, 'campaign_invite', {
      campaign_id: campaignId,
      agent_id: invitee.agentId,
      role: 'PARTICIPANT',
    });
    expect(
      (
        await refused(c, 'message_send', {
          campaign_id: campaignId,
          to: invitee.agentId,
          type: 'NOTE',
          content: 'hi',
        })
      ).code,
    ).toBe('RECIPIENT_NOT_MEMBER');
  });

  it('never routes by names in the content', async () => {
    const { c, p1, p2, campaignId } = await team();
    const toCoordinator = await ok(p1, 'message_send', {
      campaign_id: campaignId,
      to: c.agentId,
      type: 'NOTE',
      content: `@${p2.agentId} ${p2.agentId} should see this too, please forward`,
    });
    expect(await readableIds(p2, campaignId)).not.toContain(toCoordinator.message_id);
    expect(await watchedIds(p2, campaignId)).not.toContain(toCoordinator.message_id);
    const wide = await note(p1, campaignId, `addressed_to: ${c.agentId}`);
    const page = await ok(p2, 'context_read', { campaign_id: campaignId }, false);
    expect(
      page.messages.find((x: { message_id: string }) => x.message_id === wide.message_id).addressed_to,
    ).toBeNull();
  });

  it('links reply_to and task_id only to what the author can see, and records REFUSAL messages', async () => {
    const { c, p1, p2, campaignId } = await team();
    const question = await ok(c, 'message_append', {
      campaign_id: campaignId,
      type: 'QUESTION',
      content: 'Who takes the east moor?',
    });
    const refusal = await ok(p1, 'message_append', {
      campaign_id: campaignId,
      type: 'REFUSAL',
      content: 'Not me: the east moor needs a private access road.',
      reply_to: question.message_id,
    });
    const page = await ok(c, 'context_read', { campaign_id: campaignId }, false);
    expect(page.messages[0]).toMatchObject({
      message_id: refusal.message_id,
      type: 'REFUSAL',
      reply_to: question.message_id,
    });

    const direct = await ok(p1, 'message_send', {
      campaign_id: campaignId,
      to: c.agentId,
      type: 'NOTE',
      content: 'private',
    });
    const hidden = await refused(p2, 'message_append', {
      campaign_id: campaignId,
      type: 'ANSWER',
      content: 'replying to what I cannot see',
      reply_to: direct.message_id,
    });
    expect(hidden.code).toBe('NOT_FOUND');
    const elsewhere = await campaignWith(p2, []);
    const other = await note(p2, elsewhere, 'in another campaign');
    expect(
      (
        await refused(p2, 'message_append', {
          campaign_id: campaignId,
          type: 'NOTE',
          content: 'x',
          reply_to: other.message_id,
        })
      ).code,
    ).toBe('NOT_FOUND');
    expect(
      (
        await refused(p1, 'message_append', {
          campaign_id: campaignId,
          type: 'NOTE',
          content: 'x',
          task_id: 'task_NOPE',
        })
      ).code,
    ).toBe('NOT_FOUND');
    const taskId = await taskHeldBy(c, p1, campaignId);
    const linked = await note(p1, campaignId, 'Started counting.', { task_id: taskId });
    const watched = await ok(
      c,
      'events_watch',
      { campaign_id: campaignId, wait_seconds: 1, limit: 200 },
      false,
    );
    expect(
      watched.events.find((e: { message_id: string }) => e.message_id === linked.message_id).task_id,
    ).toBe(taskId);
  });

  it('gives writers appending at once each their own seq, the one their event has on the ledger', async () => {
    // The message and its event are the call's last writes, sent with its COMMIT: the seq in each
    // answer is the database's, taken at commit (docs/performance.md, "The tail of a mutation").
    const { c, p1, p2, campaignId } = await team();
    const writers = [c, p1, p2];
    const posted = await Promise.all(
      Array.from({ length: 24 }, (_, i) => note(writers[i % 3] as Member, campaignId, `note ${i}`)),
    );
    const seqs = posted.map((p) => p.seq as number).sort((a, b) => a - b);
    expect(new Set(seqs).size).toBe(24);
    expect(seqs.at(-1)! - seqs[0]!).toBe(23);
    const watched = await ok(
      c,
      'events_watch',
      { campaign_id: campaignId, wait_seconds: 1, limit: 200 },
      false,
    );
    const seqOf = new Map(
      watched.events.map((e: { message_id: string; seq: number }) => [e.message_id, e.seq]),
    );
    for (const p of posted) expect(seqOf.get(p.message_id)).toBe(p.seq);
  });

  it('stores what the writer wrote, character for character', async () => {
    const { p1, p2, campaignId } = await team();
    const content = String.raw`it's "quoted", a \ backslash, ' both, $1 and $$, '); drop table campaign_messages; -- « naïve » 😀`;
    const posted = await note(p1, campaignId, content);
    const page = await ok(p2, 'context_read', { campaign_id: campaignId }, false);
    expect(
      page.messages.find((m: { message_id: string }) => m.message_id === posted.message_id)?.content,
    ).toBe(content);
  });

  it('answers two calls with one key at once alike, and writes one message', async () => {
    const { p1, campaignId } = await team();
    const args = { campaign_id: campaignId, type: 'NOTE', content: 'twice at once', idempotency_key: key() };
    const [a, b] = await Promise.all([
      callTool(p1.client, 'message_append', args),
      callTool(p1.client, 'message_append', args),
    ]);
    expect(a.body).toEqual(b.body);
    expect(a.body.seq).toEqual(expect.any(Number));
    expect((await readableIds(p1, campaignId)).filter((id) => id === a.body.message_id)).toHaveLength(1);
  });

  it('returns the first answer again for the same idempotency_key', async () => {
    const { p1, campaignId } = await team();
    const args = { campaign_id: campaignId, type: 'NOTE', content: 'once', idempotency_key: key() };
    const first = await callTool(p1.client, 'message_append', args);
    const again = await callTool(p1.client, 'message_append', args);
    expect(again.body).toEqual(first.body);
    expect((await readableIds(p1, campaignId)).filter((id) => id === first.body.message_id)).toHaveLength(1);
  });
});

describe('proposals and decisions', () => {
  it('runs a proposal from OPEN through responses to a coordinator decision, all on the ledger', async () => {
    const { c, p1, p2, campaignId } = await team();
    const proposal = await ok(p1, 'proposal_create', {
      campaign_id: campaignId,
      title: 'Survey at dawn',
      content: 'Birds are most active at dawn; survey then.',
    });
    expect(proposal).toMatchObject({ proposal_id: expect.stringMatching(/^msg_/), status: 'OPEN' });
    const support = await ok(p2, 'proposal_respond', {
      campaign_id: campaignId,
      proposal_id: proposal.proposal_id,
      response: 'SUPPORT',
      content: 'Agreed; the light is better too.',
    });
    expect(support.proposal_id).toBe(proposal.proposal_id);

    // A participant who coordinates elsewhere sees decision_record but may not use it here.
    await campaignWith(p2, []);
    const notCoordinator = await refused(p2, 'decision_record', {
      campaign_id: campaignId,
      content: 'Accepted.',
      outcome: 'ACCEPTED',
      proposal_id: proposal.proposal_id,
    });
    expect(notCoordinator.code).toBe('ROLE_REQUIRED');
    expect(
      (await refused(p1, 'decision_record', { campaign_id: campaignId, content: 'x', outcome: 'NOTED' }))
        .code,
    ).toBe('TOOL_NOT_AVAILABLE');

    const decision = await ok(c, 'decision_record', {
      campaign_id: campaignId,
      content: 'Dawn surveys from Monday.',
      outcome: 'ACCEPTED',
      proposal_id: proposal.proposal_id,
    });
    expect(decision).toMatchObject({
      outcome: 'ACCEPTED',
      proposal_id: proposal.proposal_id,
      proposal_status: 'ACCEPTED',
    });

    const late = await refused(p2, 'proposal_respond', {
      campaign_id: campaignId,
      proposal_id: proposal.proposal_id,
      response: 'OBJECT',
      content: 'Too late?',
    });
    expect(late.code).toBe('PROPOSAL_NOT_OPEN');
    expect(late.details).toMatchObject({ status: 'ACCEPTED', decision_id: decision.decision_id });
    const twice = await refused(c, 'decision_record', {
      campaign_id: campaignId,
      content: 'Rejected after all.',
      outcome: 'REJECTED',
      proposal_id: proposal.proposal_id,
    });
    expect(twice.code).toBe('PROPOSAL_NOT_OPEN');

    const page = await ok(p2, 'context_read', { campaign_id: campaignId }, false);
    const byId = new Map(page.messages.map((x: { message_id: string }) => [x.message_id, x]));
    expect(byId.get(proposal.proposal_id)).toMatchObject({
      type: 'PROPOSAL',
      title: 'Survey at dawn',
      status: 'ACCEPTED',
    });
    expect(byId.get(support.message_id)).toMatchObject({
      type: 'PROPOSAL_RESPONSE',
      response: 'SUPPORT',
      reply_to: proposal.proposal_id,
    });
    expect(byId.get(decision.decision_id)).toMatchObject({
      type: 'DECISION',
      outcome: 'ACCEPTED',
      proposal_id: proposal.proposal_id,
    });
    const watched = await ok(p1, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 }, false);
    expect(
      watched.events.map((e: { kind: string }) => e.kind).filter((k: string) => !k.startsWith('MEMBER')),
    ).toEqual(['CAMPAIGN_CREATED', 'PROPOSAL_CREATED', 'PROPOSAL_RESPONDED', 'DECISION_RECORDED']);
  });

  it("keeps a blind participant's earlier notes hidden after it is made coordinator", async () => {
    const { c, p1, p2, campaignId } = await team('BLIND_EXPERIMENT');
    const before = await note(p1, campaignId, 'Working notes, written as a participant.');
    await ok(c, 'campaign_invite', { campaign_id: campaignId, agent_id: p1.agentId, role: 'COORDINATOR' });
    const after = await note(p1, campaignId, 'Instructions, written as coordinator.');
    const seen = await readableIds(p2, campaignId);
    expect(seen).toContain(after.message_id);
    expect(seen).not.toContain(before.message_id);
    expect(await watchedIds(p2, campaignId)).not.toContain(before.message_id);
  });

  it("answers a blind participant's proposal to the proposer alone", async () => {
    const { c, p1, p2, campaignId } = await team('BLIND_EXPERIMENT');
    const proposal = await ok(p1, 'proposal_create', {
      campaign_id: campaignId,
      title: 'Survey the north ridge',
      content: 'I propose we add the north ridge.',
    });
    const response = await ok(c, 'proposal_respond', {
      campaign_id: campaignId,
      proposal_id: proposal.proposal_id,
      response: 'SUPPORT',
      content: 'Good idea.',
    });
    const decision = await ok(c, 'decision_record', {
      campaign_id: campaignId,
      proposal_id: proposal.proposal_id,
      outcome: 'ACCEPTED',
      content: 'Accepted.',
    });
    const answers = [response.message_id, decision.decision_id];
    expect(await readableIds(p1, campaignId)).toEqual(expect.arrayContaining(answers));
    const other = [...(await readableIds(p2, campaignId)), ...(await watchedIds(p2, campaignId))];
    for (const id of [proposal.proposal_id, ...answers]) expect(other).not.toContain(id);

    // The thread stays private when its proposer is promoted later.
    const second = await ok(p1, 'proposal_create', {
      campaign_id: campaignId,
      title: 'Survey the south ridge',
      content: 'And the south ridge.',
    });
    await ok(c, 'campaign_invite', { campaign_id: campaignId, agent_id: p1.agentId, role: 'COORDINATOR' });
    const late = await ok(c, 'proposal_respond', {
      campaign_id: campaignId,
      proposal_id: second.proposal_id,
      response: 'COMMENT',
      content: 'Later.',
    });
    expect(await readableIds(p2, campaignId)).not.toContain(late.message_id);
  });

  it('refuses responses to what is not a visible proposal, and decisions may stand alone', async () => {
    const { c, p1, campaignId } = await team();
    const plain = await note(p1, campaignId, 'not a proposal');
    expect(
      (
        await refused(p1, 'proposal_respond', {
          proposal_id: plain.message_id,
          response: 'COMMENT',
          content: 'x',
        })
      ).code,
    ).toBe('NOT_FOUND');
    const noted = await ok(c, 'decision_record', {
      campaign_id: campaignId,
      content: 'We stop at dusk.',
      outcome: 'NOTED',
    });
    expect(noted).toMatchObject({ outcome: 'NOTED', proposal_id: null, proposal_status: null });
  });
});

describe('owner comments (console)', () => {
  it('lets the owner of record post OWNER_COMMENT messages that agents read, and nobody else', async () => {
    const { c, p1, campaignId } = await team();
    const campaign = await campaignRow(campaignId);
    const posted = await server.database.transaction((tx) =>
      postOwnerComment(
        tx,
        campaign.ownerId,
        campaign,
        { type: 'NOTE', content: 'Keep off the nesting sites.' },
        new Date(),
      ),
    );
    const page = await ok(p1, 'context_read', { campaign_id: campaignId }, false);
    expect(page.messages[0]).toMatchObject({
      message_id: posted.message_id,
      label: 'OWNER_COMMENT',
      from: { owner_id: campaign.ownerId },
    });
    const events = await listEventsForOwner(server.database.db, campaign, 5);
    expect(events.events[0]).toMatchObject({
      seq: posted.seq,
      actor: { owner_id: campaign.ownerId, role: 'OWNER' },
    });

    const direct = await server.database.transaction((tx) =>
      postOwnerComment(
        tx,
        campaign.ownerId,
        campaign,
        { type: 'QUESTION', content: 'How far along?', addressed_to: c.agentId },
        new Date(),
      ),
    );
    expect(await readableIds(c, campaignId)).toContain(direct.message_id);
    expect(await readableIds(p1, campaignId)).not.toContain(direct.message_id);

    const attempt = (ownerId: string, content: string) =>
      server.database.transaction((tx) =>
        postOwnerComment(tx, ownerId, campaign, { type: 'NOTE', content }, new Date()),
      );
    await expect(attempt('own_SOMEONEELSE', 'hi')).rejects.toMatchObject({ code: 'ROLE_REQUIRED' });
    await expect(attempt(campaign.ownerId, `token cd_acc_${'b'.repeat(52)}`)).rejects.toMatchObject({
      code: 'CREDENTIAL_IN_INPUT',
    });
    const tooBig = await attempt(campaign.ownerId, '€'.repeat(6_000)).catch((e: unknown) => e);
    expect(tooBig).toBeInstanceOf(DomainError);
    expect(tooBig).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('context_read', () => {
  it('pages newest first, compact by default, with incomplete, a bound cursor and a ledger cursor', async () => {
    const { p1, p2, campaignId } = await team();
    const long = await note(p1, campaignId, `${'x'.repeat(499)}😀 and more`);
    const newest = await note(p1, campaignId, 'short');
    const first = await ok(p2, 'context_read', { campaign_id: campaignId, limit: 1 }, false);
    expect(first.campaign).toMatchObject({
      campaign_id: campaignId,
      visibility: 'SHARED',
      your_role: 'PARTICIPANT',
    });
    expect(first.messages.map((x: { message_id: string }) => x.message_id)).toEqual([newest.message_id]);
    expect(first.incomplete).toBe(true);
    const second = await ok(
      p2,
      'context_read',
      { campaign_id: campaignId, limit: 1, cursor: first.cursor },
      false,
    );
    expect(second.messages[0]).toMatchObject({ message_id: long.message_id, truncated: true });
    // Cut before the emoji rather than through it.
    expect(second.messages[0].content).toBe('x'.repeat(499));
    expect(second.incomplete).toBe(false);
    expect(second.cursor).toBeNull();
    const full = await ok(p2, 'context_read', { campaign_id: campaignId, compact: false }, false);
    expect(full.messages[1].content).toBe(`${'x'.repeat(499)}😀 and more`);
    expect(full.messages[1].truncated).toBeUndefined();

    // The cursor is bound to caller, campaign and compact.
    expect(
      (
        await refused(
          p2,
          'context_read',
          { campaign_id: campaignId, limit: 1, compact: false, cursor: first.cursor },
          false,
        )
      ).code,
    ).toBe('CURSOR_INVALID');
    expect(
      (await refused(p1, 'context_read', { campaign_id: campaignId, limit: 1, cursor: first.cursor }, false))
        .code,
    ).toBe('CURSOR_INVALID');

    // ledger_cursor: watching from here returns only what came after.
    const after = await note(p1, campaignId, 'after the read');
    const watched = await ok(
      p2,
      'events_watch',
      { campaign_id: campaignId, cursor: first.ledger_cursor, wait_seconds: 1 },
      false,
    );
    expect(watched.events.map((e: { message_id: string }) => e.message_id)).toEqual([after.message_id]);
  });
});

describe('visibility matrix of messages and the ledger', () => {
  /** Who sees: [coordinator, participant 1, participant 2]. */
  const expected = {
    SHARED: { wide: [true, true, true], task: [true, true, true] },
    TASK_SCOPED: { wide: [true, true, true], task: [true, true, false] },
    BLIND_EXPERIMENT: { wide: [true, true, false], task: [true, true, false] },
    OWNER_ONLY_RESULTS: { wide: [true, true, true], task: [true, true, true] },
  } as const;

  it.each(MODES)('%s', async (mode) => {
    const { c, p1, p2, campaignId } = await team(mode);
    const taskId = await taskHeldBy(c, p1, campaignId);
    const fromCoordinator = await note(c, campaignId, 'Plan for the week.');
    const wide = await note(p1, campaignId, 'Campaign-wide note by participant 1.');
    const onTask = await note(p1, campaignId, 'Progress on my task.', { task_id: taskId });
    let direct: string | null = null;
    if (mode === 'BLIND_EXPERIMENT') {
      // Participant 1 does not learn that participant 2 takes part (issue 40): it is answered
      // exactly as for an agent outside the campaign, word for word but for the id.
      const send = (to: string) =>
        refused(p1, 'message_send', { campaign_id: campaignId, to, type: 'NOTE', content: 'psst' });
      const hidden = await send(p2.agentId);
      const outsider = await newMember(server);
      const stranger = await send(outsider.agentId);
      expect(hidden.code).toBe('RECIPIENT_NOT_MEMBER');
      expect(JSON.stringify(hidden).replaceAll(p2.agentId, 'AGENT')).toBe(
        JSON.stringify(stranger).replaceAll(outsider.agentId, 'AGENT'),
      );
      // Handing the task over says no more: participant 2 is refused as the outsider is.
      const lease = (await ok(p1, 'task_get', { task_id: taskId }, false)).lease?.lease_id as string;
      const delegate = (to: string) =>
        refused(p1, 'task_delegate', { task_id: taskId, lease_id: lease, assignee_id: to });
      const toHidden = await delegate(p2.agentId);
      const toOutsider = await delegate(outsider.agentId);
      expect(toHidden.code).toBe('NOT_A_MEMBER');
      expect(JSON.stringify(toHidden).replaceAll(p2.agentId, 'AGENT')).toBe(
        JSON.stringify(toOutsider).replaceAll(outsider.agentId, 'AGENT'),
      );
    } else {
      direct = (
        await ok(p1, 'message_send', {
          campaign_id: campaignId,
          to: p2.agentId,
          type: 'NOTE',
          content: 'psst',
        })
      ).message_id;
    }
    if (mode === 'TASK_SCOPED') {
      // Linked to a task participant 2 is not involved in, it could never be read there.
      const linked = await refused(p1, 'message_send', {
        campaign_id: campaignId,
        to: p2.agentId,
        task_id: taskId,
        type: 'NOTE',
        content: 'about my task',
      });
      expect(linked.code).toBe('RECIPIENT_CANNOT_SEE');
    }
    const members = [c, p1, p2];
    for (const [i, m] of members.entries()) {
      for (const ids of [await readableIds(m, campaignId), await watchedIds(m, campaignId)]) {
        expect(ids.includes(fromCoordinator.message_id), `${mode} member ${i} coordinator note`).toBe(true);
        expect(ids.includes(wide.message_id), `${mode} member ${i} wide`).toBe(expected[mode].wide[i]);
        expect(ids.includes(onTask.message_id), `${mode} member ${i} task`).toBe(expected[mode].task[i]);
        if (direct) expect(ids.includes(direct), `${mode} member ${i} direct`).toBe(i !== 0);
      }
    }
    // The owner of record sees everything, direct messages included.
    const campaign = await campaignRow(campaignId);
    const ownerMessages = (await listMessagesForOwner(server.database.db, campaign, 50)).messages.map(
      (x) => x.message_id,
    );
    const ownerEvents = (await listEventsForOwner(server.database.db, campaign, 50)).events.map(
      (e) => e.message_id,
    );
    for (const id of [
      fromCoordinator.message_id,
      wide.message_id,
      onTask.message_id,
      ...(direct ? [direct] : []),
    ]) {
      expect(ownerMessages).toContain(id);
      expect(ownerEvents).toContain(id);
    }
    // The coordinator's TASK_PUBLISHED names the worker, except to a blind participant.
    const published = async (m: Member) => {
      const res = await ok(
        m,
        'events_watch',
        { campaign_id: campaignId, wait_seconds: 1, limit: 200 },
        false,
      );
      return res.events.find((e: { kind: string }) => e.kind === 'TASK_PUBLISHED');
    };
    expect((await published(p1)).subject_agent_id).toBe(p1.agentId);
    expect((await published(c)).payload.assignee_id).toBe(p1.agentId);
    const seenByP2 = await published(p2);
    if (mode === 'TASK_SCOPED') expect(seenByP2).toBeUndefined();
    else {
      const shown = mode === 'BLIND_EXPERIMENT' ? null : p1.agentId;
      expect(seenByP2).toMatchObject({ subject_agent_id: shown, payload: { assignee_id: shown } });
    }
    // A participant cannot link a message to a task it cannot see.
    if (mode === 'TASK_SCOPED') {
      expect(
        (
          await refused(p2, 'message_append', {
            campaign_id: campaignId,
            type: 'NOTE',
            content: 'x',
            task_id: taskId,
          })
        ).code,
      ).toBe('NOT_FOUND');
    }
  });
});
