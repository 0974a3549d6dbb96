import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { conditions, key, type Member, newMember, ok, publishTask, refused } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { type CampaignMailbox, grantedMailbox } from '../support/mail.ts';
import { ownerApi } from '../support/owner-api.ts';
import { credit } from '../support/rewards.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 19 item 6: open pickup. Anyone active who is not a member takes a listed task by board
 * and task_ref, and works on it through the entry's few actions only; the entry ends when the
 * task is done or released, when the owner withdraws the board or the task, or after 24 hours.
 */

const clock = new FakeClock(new Date());
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock, env: { CAIRN_MAIL_DOMAIN: 'mail.cairn.test' } });
});
afterAll(async () => {
  await server?.close();
});

const QUOTE = 'Nine golden plovers rested on the summit cairn at dawn';

interface Listed {
  box: CampaignMailbox;
  slug: string;
  taskId: string;
  taskRef: string;
  evidenceId: string;
}

/**
 * A campaign with one open-pickup task whose evidence is a mail the coordinator shared for it
 * (RECEIVED_MAIL: a recorded source), listed on a board of its own.
 */
async function listedTask(extra: Record<string, unknown> = {}, fundPoints = 0): Promise<Listed> {
  const box = await grantedMailbox(server);
  if (fundPoints > 0) await credit(server, box.coordinator, 'POINTS', fundPoints);
  const taskId = await publishTask(box.coordinator, box.campaignId, {
    conditions: { ...conditions(), participation: 'OPEN', publish_contract: true },
    ...extra,
  });
  const raw = Buffer.from(
    [
      'From: Warden <warden@example.org>',
      `To: ${box.address}`,
      'Subject: Summit count',
      `Message-ID: <${key()}@example.org>`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      `${QUOTE}, the warden wrote.`,
      '',
    ].join('\r\n'),
  );
  const [delivered] = await server.app.services.mail.deliver({
    via: 'SMTP',
    recipients: [box.address],
    envelopeFrom: 'warden@example.org',
    raw,
    processed: null,
    size: raw.length,
    providerDeliveryId: null,
    remote: '127.0.0.1',
  });
  const shared = await ok(box.coordinator, 'evidence_submit', {
    campaign_id: box.campaignId,
    mail_id: delivered?.mail_id,
    task_id: taskId,
  });
  const slug = `pick-${Math.random().toString(36).slice(2, 10)}`;
  const made = await ownerApi(server, box.token, 'POST', '/v1/boards', {
    slug,
    title: 'Summit counts',
    purpose: 'WORK',
    campaign_id: box.campaignId,
    task_ids: [taskId],
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { box, slug, taskId, taskRef: made.body.tasks[0].task_ref, evidenceId: shared.evidence_id };
}

const take = (m: Member, l: Listed) => ok(m, 'public_task_take', { board: l.slug, task_ref: l.taskRef });
const work = (m: Member, entry: string, action: string, args: Record<string, unknown> = {}) =>
  ok(m, 'public_task_work', { public_entry_id: entry, action, arguments: args });
const workRefused = (m: Member, entry: string, action: string, args: Record<string, unknown> = {}) =>
  refused(m, 'public_task_work', { public_entry_id: entry, action, arguments: args });
const board = async (slug: string) => (await fetch(`${server.url}/v1/public/boards/${slug}`)).json();

describe('public_task_take', () => {
  it('gives one taker an entry and a lease; the next taker, a member and a wrong ref are refused', async () => {
    const l = await listedTask();
    const taker = await newMember(server);
    const taken = await take(taker, l);
    expect(taken).toMatchObject({
      public_entry_id: expect.stringMatching(/^pen_/),
      board: l.slug,
      task_ref: l.taskRef,
      task: { title: 'Find a fact', conditions: expect.objectContaining({ participation: 'OPEN' }) },
      lease: { lease_id: expect.stringMatching(/^lse_/), execution_deadline: expect.any(String) },
      allowed_actions: [
        'describe_action',
        'task_evidence',
        'evidence_get',
        'task_complete',
        'release',
        'notes',
        'renew_lease',
      ],
    });
    expect(Date.parse(taken.expires_at) - clock.now().getTime()).toBe(24 * 3_600_000);
    expect(JSON.stringify(taken)).not.toContain(l.taskId);
    expect((await board(l.slug)).tasks[0]).toMatchObject({ status: 'CLAIMED', available: false });

    const late = await refused(await newMember(server), 'public_task_take', {
      board: l.slug,
      task_ref: l.taskRef,
    });
    expect(late).toMatchObject({ code: 'TASK_ALREADY_CLAIMED' });
    expect(JSON.stringify(late)).not.toContain(taker.agentId);
    const again = await refused(taker, 'public_task_take', { board: l.slug, task_ref: l.taskRef });
    expect(again.details).toMatchObject({ held_by_you: true, public_entry_id: taken.public_entry_id });

    const member = await refused(l.box.coordinator, 'public_task_take', {
      board: l.slug,
      task_ref: l.taskRef,
    });
    expect(member.code).toBe('CONFLICT');
    const unknown = await refused(taker, 'public_task_take', { board: l.slug, task_ref: 'tref_aaaaaaaa' });
    expect(unknown.code).toBe('NOT_FOUND');
  });

  it('lets exactly one of 50 concurrent takers win', async () => {
    const l = await listedTask();
    const takers = await Promise.all(Array.from({ length: 50 }, () => newMember(server)));
    const results = await Promise.all(
      takers.map((t) =>
        callTool(t.client, 'public_task_take', {
          board: l.slug,
          task_ref: l.taskRef,
          idempotency_key: key(),
        }),
      ),
    );
    const won = results.filter((r) => !r.isError);
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.isError).map((r) => r.body.error.code)).toEqual(
      Array(49).fill('TASK_ALREADY_CLAIMED'),
    );
  });
});

describe('public_task_work', () => {
  it('reaches the task and nothing else, and a VERIFIED result ends the entry', async () => {
    const l = await listedTask();
    const taker = await newMember(server);
    const taken = await take(taker, l);
    const entry = taken.public_entry_id as string;

    const described = await work(taker, entry, 'describe_action', { action: 'task_complete' });
    expect(described.arguments_schema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['evidence_ids', 'claimed_outcome', 'summary']),
      additionalProperties: false,
    });
    for (const action of ['fetch_text', 'campaign_mail_list', 'reward_release', 'task_list']) {
      const no = await workRefused(taker, entry, action);
      expect(no).toMatchObject({ code: 'ACTION_NOT_ALLOWED' });
      expect(no.details.allowed_actions).toContain('task_complete');
    }
    expect((await workRefused(taker, entry, 'task_evidence', { limit: 51 })).code).toBe('VALIDATION_FAILED');

    const listed = await work(taker, entry, 'task_evidence', { limit: 5 });
    expect(listed.evidence.map((e: { evidence_id: string }) => e.evidence_id)).toEqual([l.evidenceId]);
    const got = await work(taker, entry, 'evidence_get', { evidence_id: l.evidenceId, include_text: true });
    expect(got.evidence).toMatchObject({ provenance: 'RECEIVED_MAIL', trust_label: 'UNTRUSTED_EMAIL' });
    expect(got.window.text).toContain(QUOTE);
    // Every success names the next move.
    for (const answer of [described, got]) {
      expect(answer.next_steps[0]).toMatchObject({
        tool: 'public_task_work',
        arguments: { public_entry_id: entry },
      });
    }
    expect(got.next_steps[0].arguments.action).toBe('task_complete');
    // Evidence of another task, even a public one, is out of reach.
    const other = await listedTask();
    expect((await workRefused(taker, entry, 'evidence_get', { evidence_id: other.evidenceId })).code).toBe(
      'NOT_FOUND',
    );

    await work(taker, entry, 'notes', { text: 'Starting on the summit count.' });
    // A heartbeat never moves the deadline (SPEC Limits).
    const renewed = await work(taker, entry, 'renew_lease');
    expect(renewed.execution_deadline).toBe(taken.lease.execution_deadline);
    expect(renewed.entry_expires_at).toBe(taken.expires_at);
    expect(renewed.next_steps[0].arguments.action).toBe('task_complete');

    // Only the task's evidence may be cited: not another task's, not the taker's own reads.
    const foreign = await workRefused(taker, entry, 'task_complete', {
      evidence_ids: [l.evidenceId, other.evidenceId],
      claimed_outcome: 'COMPLETE',
      summary: `The warden wrote that "${QUOTE}".`,
    });
    expect(foreign).toMatchObject({ code: 'NOT_FOUND', details: { evidence_ids: [other.evidenceId] } });
    const wrong = await work(taker, entry, 'task_complete', {
      evidence_ids: [l.evidenceId],
      claimed_outcome: 'COMPLETE',
      summary: 'The warden wrote that "Ninety golden plovers rested on the summit" that day.',
    });
    expect(wrong).toMatchObject({ status: 'NOT_VERIFIED', entry_ended: false, next: { actor: 'WORKER' } });
    expect(wrong.next.action).toContain('public_task_work');
    const done = await work(taker, entry, 'task_complete', {
      evidence_ids: [l.evidenceId],
      claimed_outcome: 'COMPLETE',
      summary: `The warden wrote that "${QUOTE}".`,
    });
    expect(done).toMatchObject({ status: 'VERIFIED', task_status: 'VERIFIED', entry_ended: true });

    const ended = await workRefused(taker, entry, 'task_evidence');
    expect(ended).toMatchObject({ code: 'PUBLIC_ENTRY_ENDED', details: { reason: 'COMPLETED' } });
    // The campaign sees the note and the result.
    const events = await ok(
      l.box.coordinator,
      'events_watch',
      { campaign_id: l.box.campaignId, wait_seconds: 1 },
      false,
    );
    const kinds = events.events.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['TASK_CLAIMED', 'PUBLIC_NOTE', 'TASK_SUBMITTED']));
    // Another agent's entry id is nobody else's.
    expect((await workRefused(l.box.coordinator, entry, 'task_evidence')).code).toBe('NOT_FOUND');
  });

  it('verifies a funded task on the task evidence (the taker reads nothing itself)', async () => {
    const l = await listedTask({ reward_points: 100 }, 500);
    expect((await board(l.slug)).tasks[0].reward).toMatchObject({ amount: 100, funded: true });
    const taker = await newMember(server);
    const entry = (await take(taker, l)).public_entry_id as string;
    const done = await work(taker, entry, 'task_complete', {
      evidence_ids: [l.evidenceId],
      claimed_outcome: 'COMPLETE',
      summary: `The warden wrote that "${QUOTE}".`,
    });
    expect(done.status).toBe('VERIFIED');
    expect(done.checks.map((c: { check: string }) => c.check)).not.toContain('PAID_QUOTES_OWN_READS');
    // The payee is the taker: the worker of the verified submission.
    const release = await ok(l.box.coordinator, 'reward_release', { task_id: l.taskId, action: 'RELEASE' });
    expect(release).toMatchObject({ paid: false, approval_id: expect.stringMatching(/^apr_/) });
  });

  it('ends the entry at once when the owner withdraws the board or takes the task off it, and reopens the task', async () => {
    const l = await listedTask();
    const taker = await newMember(server);
    const entry = (await take(taker, l)).public_entry_id as string;
    await ownerApi(server, l.box.token, 'DELETE', `/v1/boards/${l.slug}`);
    expect(await workRefused(taker, entry, 'task_evidence')).toMatchObject({
      code: 'PUBLIC_ENTRY_ENDED',
      details: { reason: 'BOARD_WITHDRAWN' },
    });
    const task = await ok(l.box.coordinator, 'task_get', { task_id: l.taskId }, false);
    expect(task.status).toBe('OPEN');

    const m = await listedTask();
    const second = await newMember(server);
    const entry2 = (await take(second, m)).public_entry_id as string;
    const other = await publishTask(m.box.coordinator, m.box.campaignId, {
      conditions: { ...conditions(), participation: 'OPEN', publish_contract: true },
    });
    await ownerApi(server, m.box.token, 'PATCH', `/v1/boards/${m.slug}`, { task_ids: [other] });
    expect((await workRefused(second, entry2, 'renew_lease')).details).toMatchObject({
      reason: 'TASK_REMOVED',
    });
    expect((await ok(m.box.coordinator, 'task_get', { task_id: m.taskId }, false)).status).toBe('OPEN');
  });

  it('ends the entry on release, and after 24 hours with its lease', async () => {
    const l = await listedTask();
    const taker = await newMember(server);
    const entry = (await take(taker, l)).public_entry_id as string;
    const released = await work(taker, entry, 'release', { reason: 'OUT_OF_SCOPE' });
    expect(released).toMatchObject({ status: 'OPEN', entry_ended: true });
    expect((await workRefused(taker, entry, 'task_evidence')).details.reason).toBe('RELEASED');

    // A budget longer than a day: the lease ends with the entry.
    const long = await listedTask({
      conditions: { ...conditions(2_000), participation: 'OPEN', publish_contract: true },
    });
    const late = await newMember(server);
    const taken = await take(late, long);
    expect(taken.lease.execution_deadline).toBe(taken.expires_at);
    clock.advance(24 * 3_600_000 + 1_000);
    expect((await workRefused(late, taken.public_entry_id, 'task_evidence')).details.reason).toBe('EXPIRED');
    // The task can be taken again by someone else.
    expect((await take(await newMember(server), long)).public_entry_id).toMatch(/^pen_/);

    // A shorter budget: the lease ends before the entry would, and so does the entry's use.
    const short = await listedTask();
    const quick = await newMember(server);
    const entered = await take(quick, short);
    clock.advance(61 * 60_000);
    expect((await workRefused(quick, entered.public_entry_id, 'renew_lease')).details.reason).toBe(
      'LEASE_ENDED',
    );
  });
});
