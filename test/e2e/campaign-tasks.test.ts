import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishTaskAsOwner } from '../../src/domains/campaigns/index.ts';
import { campaignEvents, campaigns } from '../../src/domains/campaigns/tables.ts';
import { FakeClock } from '../../src/kernel/clock.ts';
import { campaignWith, key, type Member, newMember, ok, refused } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Issue 5 item 4: tasks, their conditions, expiring single-winner leases, edits and history. */

const clock = new FakeClock(new Date());
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(async () => {
  await server?.close();
});

const conditions = (extra: Record<string, unknown> = {}) => ({
  available_data: 'The RSPB species pages and the BTO bird atlas.',
  authorized_scope: 'Public pages of rspb.org.uk and bto.org only.',
  deliverable: 'A summary with quoted sources.',
  reproduction_steps: 'Open the cited pages and find the quoted text.',
  time_budget_minutes: 30,
  stop_conditions: 'Stop when a page asks for a login.',
  reviewer: 'The campaign coordinator.',
  ...extra,
});

async function publish(m: Member, campaignId: string, extra: Record<string, unknown> = {}) {
  const res = await ok(m, 'task_publish', {
    campaign_id: campaignId,
    title: 'Curlew breeding range',
    objective: 'Find where curlews breed in the UK.',
    acceptance: 'At least two quoted sources.',
    conditions: conditions(),
    ...extra,
  });
  return res as { task_id: string; version: number };
}

const eventsOf = (campaignId: string, kind: string) =>
  server.database.db
    .select()
    .from(campaignEvents)
    .where(and(eq(campaignEvents.campaignId, campaignId), eq(campaignEvents.kind, kind)));

const get = (m: Member, taskId: string) => ok(m, 'task_get', { task_id: taskId }, false);
const history = async (m: Member, taskId: string) =>
  (await ok(m, 'task_history', { task_id: taskId }, false)).entries as Array<Record<string, unknown>>;

/** A coordinator, two participants and a campaign of theirs with one open task. */
async function crew(settings: Record<string, unknown> = {}) {
  const [coord, p1, p2] = [await newMember(server), await newMember(server), await newMember(server)];
  const campaignId = await campaignWith(coord, [p1, p2], settings);
  const { task_id: taskId } = await publish(coord, campaignId);
  return { coord, p1, p2, campaignId, taskId };
}

describe('task_publish', () => {
  it('lets coordinators publish, refuses participants unless allow_agent_publish, and reports missing terms', async () => {
    const { coord, p1, campaignId } = await crew();
    const err = await refused(p1, 'task_publish', {
      campaign_id: campaignId,
      title: 't',
      objective: 'o',
      acceptance: 'a',
      conditions: conditions(),
    });
    expect(err.code).toBe('ROLE_REQUIRED');

    const incomplete = await refused(coord, 'task_publish', {
      campaign_id: campaignId,
      title: 't',
      objective: 'o',
      acceptance: 'a',
      conditions: { deliverable: 'A list.', reviewer: '   ', time_budget_minutes: 10 },
    });
    expect(incomplete.code).toBe('INCOMPLETE');
    expect(incomplete.details.missing).toEqual([
      'available_data',
      'authorized_scope',
      'reproduction_steps',
      'stop_conditions',
      'reviewer',
    ]);
    const badBudget = await refused(coord, 'task_publish', {
      campaign_id: campaignId,
      title: 't',
      objective: 'o',
      acceptance: 'a',
      conditions: conditions({ time_budget_minutes: 10_081 }),
    });
    expect(badBudget.code).toBe('VALIDATION_FAILED');
    const reward = await refused(coord, 'task_publish', {
      campaign_id: campaignId,
      title: 't',
      objective: 'o',
      acceptance: 'a',
      conditions: conditions(),
      reward_points: 10,
      reward_usd: 1,
    });
    // Points and dollars are kept apart: a reward is one or the other (docs/rewards.md).
    expect(reward.code).toBe('VALIDATION_FAILED');

    const open = await newMember(server);
    const p = await newMember(server);
    const openCampaign = await campaignWith(open, [p], { allow_agent_publish: true });
    const published = await publish(p, openCampaign);
    expect(published).toMatchObject({ task_id: expect.stringMatching(/^task_/), version: 1 });
    const task = await get(p, published.task_id);
    expect(task).toMatchObject({
      status: 'OPEN',
      version: 1,
      created_by: p.agentId,
      conditions: { ...conditions(), rework_limit: 2, participation: 'CAMPAIGN', publish_contract: false },
      editing: { can_edit: true, edit_count: 0, last_edited_at: null },
      lease: null,
      submissions: [],
    });
  });

  it('lets the owner of record publish from the console, and only into its own campaign', async () => {
    const { coord, campaignId } = await crew();
    const [campaign] = await server.database.db.select().from(campaigns).where(eq(campaigns.id, campaignId));
    const ownerId = campaign?.ownerId as string;
    const input = { title: 'Owner task', objective: 'o', acceptance: 'a', conditions: conditions() };
    const made = await server.database.transaction((tx) =>
      publishTaskAsOwner(tx, ownerId, campaignId, input, clock.now()),
    );
    const task = await get(coord, made.task_id);
    expect(task).toMatchObject({ created_by: null, published_by_owner: true, status: 'OPEN' });
    expect((await history(coord, made.task_id))[0]).toMatchObject({
      kind: 'PUBLISH',
      by: 'OWNER',
      agent_id: null,
    });
    await expect(
      server.database.transaction((tx) =>
        publishTaskAsOwner(tx, 'own_someoneelse', campaignId, input, clock.now()),
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('claims and leases', () => {
  it('gives one claimer a lease ending at claim time plus the budget; the next gets TASK_ALREADY_CLAIMED', async () => {
    const { coord, p1, p2, taskId } = await crew();
    const claimedAt = clock.now().getTime();
    const claim = await ok(p1, 'task_claim', { task_id: taskId });
    expect(claim).toMatchObject({ task_id: taskId, status: 'CLAIMED', version: 2 });
    expect(claim.lease.lease_id).toMatch(/^lse_/);
    expect(Date.parse(claim.lease.execution_deadline)).toBe(claimedAt + 30 * 60_000);

    const second = await refused(p2, 'task_claim', { task_id: taskId });
    expect(second.code).toBe('TASK_ALREADY_CLAIMED');
    expect(second.details).toMatchObject({ task_id: taskId, status: 'CLAIMED', agent_id: p1.agentId });
    expect(JSON.stringify(second)).not.toContain(claim.lease.lease_id);

    // Others see that it is held and until when, never the lease id.
    const seen = await get(coord, taskId);
    expect(seen.lease).toEqual({
      held: true,
      held_by_you: false,
      execution_deadline: claim.lease.execution_deadline,
      agent_id: p1.agentId,
    });
    const mine = await get(p1, taskId);
    expect(mine.lease).toMatchObject({ held_by_you: true, lease_id: claim.lease.lease_id });
    expect(mine.editing.can_edit).toBe(false);
  });

  it('returns the first result for a repeated idempotency_key', async () => {
    const { p1, taskId } = await crew();
    const idem = key();
    const first = await callTool(p1.client, 'task_claim', { task_id: taskId, idempotency_key: idem });
    const again = await callTool(p1.client, 'task_claim', { task_id: taskId, idempotency_key: idem });
    expect(first.isError).toBe(false);
    expect(again.body).toEqual(first.body);
    const other = await refused(p1, 'task_claim', { task_id: taskId });
    expect(other).toMatchObject({ code: 'TASK_ALREADY_CLAIMED', details: { held_by_you: true } });
    // The holder's next move is the work, not another task.
    expect(other.next_action).toContain('task_complete');
    expect(other.next_action).toContain(first.body.lease.lease_id);
  });

  it('never moves the deadline on heartbeat', async () => {
    const { p1, p2, taskId } = await crew();
    const { lease } = await ok(p1, 'task_claim', { task_id: taskId });
    clock.advance(10 * 60_000);
    const beat = await ok(p1, 'task_heartbeat', { task_id: taskId, lease_id: lease.lease_id }, false);
    expect(beat).toMatchObject({
      lease_id: lease.lease_id,
      execution_deadline: lease.execution_deadline,
      seconds_left: 20 * 60,
    });
    const notYours = await refused(
      p2,
      'task_heartbeat',
      { task_id: taskId, lease_id: lease.lease_id },
      false,
    );
    expect(notYours).toMatchObject({ code: 'LEASE_NOT_CURRENT', details: { reason: 'NOT_YOURS' } });
    // A lease id the task never had: the refusal says to claim first, naming the task.
    const unknownLease = await refused(
      p2,
      'task_heartbeat',
      { task_id: taskId, lease_id: 'lse_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
      false,
    );
    expect(unknownLease).toMatchObject({
      code: 'NOT_FOUND',
      details: { lease_id: 'lse_01ARZ3NDEKTSV4RRFFQ69G5FAV' },
    });
    expect(unknownLease.next_action).toContain(`task_claim with task_id ${taskId}`);
    expect((await get(p1, taskId)).lease.execution_deadline).toBe(lease.execution_deadline);
  });

  it('reopens on release and clears the releasing worker’s reservation; BLOCKED blocks until edited', async () => {
    const { coord, p1, p2, taskId } = await crew();
    const v = (await get(coord, taskId)).version;
    await ok(coord, 'task_assign', { task_id: taskId, expected_version: v, assignee_id: p1.agentId });
    const { lease } = await ok(p1, 'task_claim', { task_id: taskId });
    const released = await ok(p1, 'task_release', {
      task_id: taskId,
      lease_id: lease.lease_id,
      reason: 'OUT_OF_SCOPE',
      note: 'The data needs a login.',
    });
    expect(released).toMatchObject({ status: 'OPEN', reason: 'OUT_OF_SCOPE' });
    const after = await get(coord, taskId);
    expect(after).toMatchObject({ status: 'OPEN', assignee_id: null, reserved: false, lease: null });
    const gone = await refused(p1, 'task_heartbeat', { task_id: taskId, lease_id: lease.lease_id }, false);
    expect(gone.details.reason).toBe('RELEASED');

    const again = await ok(p2, 'task_claim', { task_id: taskId });
    await ok(p2, 'task_release', { task_id: taskId, lease_id: again.lease.lease_id, reason: 'BLOCKED' });
    expect((await get(coord, taskId)).status).toBe('BLOCKED');
    expect((await refused(p1, 'task_claim', { task_id: taskId })).code).toBe('TASK_NOT_CLAIMABLE');
    const blocked = await get(coord, taskId);
    const edited = await ok(coord, 'task_edit', {
      task_id: taskId,
      expected_version: blocked.version,
      objective: 'Find where curlews breed in England only.',
    });
    expect(edited).toMatchObject({ status: 'OPEN', changed: ['objective'] });
    await ok(p1, 'task_claim', { task_id: taskId });
  });

  it('expires a lease at its deadline: the old worker is refused, another claims, history shows EXPIRE', async () => {
    const { coord, p1, p2, taskId } = await crew();
    const { lease } = await ok(p1, 'task_claim', { task_id: taskId });
    clock.advance(30 * 60_000 + 1_000);
    // Before anything ends the lease, its passed deadline already counts.
    const listed = await ok(coord, 'task_list', { status: 'CLAIMED' }, false);
    expect(listed.tasks.find((t: { task_id: string }) => t.task_id === taskId)?.lease).toBeNull();
    const late = await refused(p1, 'task_heartbeat', { task_id: taskId, lease_id: lease.lease_id }, false);
    expect(late).toMatchObject({
      code: 'LEASE_NOT_CURRENT',
      details: { reason: 'EXPIRED', task_id: taskId },
    });
    const late2 = await refused(p1, 'task_release', {
      task_id: taskId,
      lease_id: lease.lease_id,
      reason: 'OTHER',
    });
    expect(late2.details.reason).toBe('EXPIRED');

    const next = await ok(p2, 'task_claim', { task_id: taskId });
    expect(Date.parse(next.lease.execution_deadline)).toBe(clock.now().getTime() + 30 * 60_000);
    const kinds = (await history(coord, taskId)).map((e) => e.kind);
    expect(kinds).toEqual(['CLAIM', 'EXPIRE', 'CLAIM', 'PUBLISH']);
    const expire = (await history(coord, taskId))[1];
    expect(expire).toMatchObject({
      by: 'SYSTEM',
      agent_id: null,
      before: { status: 'CLAIMED' },
      after: { status: 'OPEN' },
    });
    // The former worker can still read the task it worked on.
    expect((await get(p1, taskId)).task_id).toBe(taskId);
  });

  it('ends due leases in the sweep and records them on the ledger', async () => {
    const { sweepExpiredLeases } = await import('../../src/domains/campaigns/index.ts');
    const { coord, p1, taskId, campaignId } = await crew();
    await ok(p1, 'task_claim', { task_id: taskId });
    clock.advance(31 * 60_000);
    // Scoped to this campaign: a global sweep at this fake time would end other files' leases
    // on a shared PostgreSQL.
    const swept = await sweepExpiredLeases(server.database, clock.now(), { campaignId });
    expect(swept.expired_leases).toBe(1);
    expect((await get(coord, taskId)).status).toBe('OPEN');
    const events = await eventsOf(campaignId, 'TASK_LEASE_EXPIRED');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actorRole: 'SYSTEM', taskId, actorAgentId: null });
  });
});

describe('task_edit, task_assign, task_delegate, task_history', () => {
  it('lets only the creator edit, at the current version, and only while nobody holds the task', async () => {
    const { coord, p1, taskId } = await crew();
    const other = await refused(p1, 'task_edit', { task_id: taskId, expected_version: 1, title: 'Mine now' });
    expect(other.code).toBe('ROLE_REQUIRED');

    const edited = await ok(coord, 'task_edit', {
      task_id: taskId,
      expected_version: 1,
      title: 'Curlew and lapwing breeding range',
      conditions: conditions({ time_budget_minutes: 45, max_spend_usd: 0 }),
    });
    expect(edited).toMatchObject({ version: 2, edit_count: 1, changed: ['title', 'conditions'] });
    const stale = await refused(coord, 'task_edit', { task_id: taskId, expected_version: 1, title: 'Again' });
    expect(stale).toMatchObject({
      code: 'VERSION_CONFLICT',
      details: { current_version: 2, expected_version: 1 },
    });
    // The same values again are no change: no new version, nothing in the history.
    const same = await ok(coord, 'task_edit', {
      task_id: taskId,
      expected_version: 2,
      title: 'Curlew and lapwing breeding range',
      conditions: conditions({ time_budget_minutes: 45, max_spend_usd: 0 }),
    });
    expect(same).toMatchObject({ version: 2, edit_count: 1, changed: [] });
    const incomplete = await refused(coord, 'task_edit', {
      task_id: taskId,
      expected_version: 2,
      conditions: { deliverable: 'x' },
    });
    expect(incomplete.code).toBe('INCOMPLETE');

    const task = await get(coord, taskId);
    expect(task).toMatchObject({ title: 'Curlew and lapwing breeding range', version: 2 });
    expect(task.editing).toMatchObject({
      can_edit: true,
      edit_count: 1,
      last_edited_at: clock.now().toISOString(),
    });

    const { lease } = await ok(p1, 'task_claim', { task_id: taskId });
    expect(Date.parse(lease.execution_deadline)).toBe(clock.now().getTime() + 45 * 60_000);
    const held = await refused(coord, 'task_edit', {
      task_id: taskId,
      expected_version: 3,
      title: 'While held',
    });
    expect(held.code).toBe('TASK_NOT_EDITABLE');

    const entries = await history(coord, taskId);
    expect(entries.map((e) => e.kind)).toEqual(['CLAIM', 'EDIT', 'PUBLISH']);
    expect(entries[1]).toMatchObject({
      by: 'AGENT',
      agent_id: coord.agentId,
      version: 2,
      before: { title: 'Curlew breeding range', conditions: { time_budget_minutes: 30 } },
      after: {
        title: 'Curlew and lapwing breeding range',
        conditions: { time_budget_minutes: 45, max_spend_usd: 0 },
      },
    });
    expect(Date.parse(String(entries[1]?.at))).toBe(clock.now().getTime());
  });

  it('reserves a task with task_assign, refuses other claimers, and reopens it when the assignee is omitted', async () => {
    const { coord, p1, p2, taskId } = await crew();
    const byParticipant = await refused(p2, 'task_assign', { task_id: taskId, expected_version: 1 });
    expect(byParticipant.code).toBe('ROLE_REQUIRED');
    const outsider = await newMember(server);
    const notMember = await refused(coord, 'task_assign', {
      task_id: taskId,
      expected_version: 1,
      assignee_id: outsider.agentId,
    });
    expect(notMember.code).toBe('NOT_A_MEMBER');

    const assigned = await ok(coord, 'task_assign', {
      task_id: taskId,
      expected_version: 1,
      assignee_id: p1.agentId,
    });
    expect(assigned).toMatchObject({ assignee_id: p1.agentId, version: 2 });
    const taken = await refused(p2, 'task_claim', { task_id: taskId });
    expect(taken).toMatchObject({
      code: 'TASK_NOT_CLAIMABLE',
      details: { reserved: true, assignee_id: p1.agentId },
    });

    await ok(coord, 'task_assign', { task_id: taskId, expected_version: 2 });
    expect((await get(coord, taskId)).assignee_id).toBeNull();
    await ok(p2, 'task_claim', { task_id: taskId });
    const whileHeld = await refused(coord, 'task_assign', {
      task_id: taskId,
      expected_version: 4,
      assignee_id: p1.agentId,
    });
    expect(whileHeld.code).toBe('TASK_NOT_EDITABLE');
    const kinds = (await history(coord, taskId)).map((e) => e.kind);
    expect(kinds).toEqual(['CLAIM', 'ASSIGN', 'ASSIGN', 'PUBLISH']);
  });

  it('hands a task over with task_delegate: the lease ends and the delegate alone may claim it', async () => {
    const { coord, p1, p2, taskId, campaignId } = await crew();
    const third = await newMember(server);
    await ok(third, 'campaign_join', { campaign_id: campaignId });
    const { lease } = await ok(p1, 'task_claim', { task_id: taskId });
    const delegated = await ok(p1, 'task_delegate', {
      task_id: taskId,
      lease_id: lease.lease_id,
      assignee_id: p2.agentId,
      note: 'You know the atlas better.',
    });
    expect(delegated).toMatchObject({ status: 'OPEN', assignee_id: p2.agentId });
    const ended = await refused(p1, 'task_heartbeat', { task_id: taskId, lease_id: lease.lease_id }, false);
    expect(ended.details.reason).toBe('DELEGATED');
    expect((await refused(third, 'task_claim', { task_id: taskId })).code).toBe('TASK_NOT_CLAIMABLE');
    await ok(p2, 'task_claim', { task_id: taskId });
    const [claim, delegate] = await history(coord, taskId);
    expect(claim?.kind).toBe('CLAIM');
    expect(delegate).toMatchObject({
      kind: 'DELEGATE',
      agent_id: p1.agentId,
      before: { status: 'CLAIMED', assignee_id: null },
      after: { status: 'OPEN', assignee_id: p2.agentId, note: 'You know the atlas better.' },
    });
    const events = await eventsOf(campaignId, 'TASK_DELEGATED');
    expect(events).toHaveLength(1);
    expect(events[0]?.subjectAgentId).toBe(p2.agentId);
  });

  it('pages task_history and task_list with signed cursors', async () => {
    const { coord, p1, taskId, campaignId } = await crew();
    for (let i = 0; i < 3; i++) {
      const { lease } = await ok(p1, 'task_claim', { task_id: taskId });
      await ok(p1, 'task_release', { task_id: taskId, lease_id: lease.lease_id, reason: 'NO_PROGRESS' });
    }
    const first = await ok(coord, 'task_history', { task_id: taskId, limit: 4 }, false);
    expect(first.entries).toHaveLength(4);
    const rest = await ok(
      coord,
      'task_history',
      { task_id: taskId, limit: 4, cursor: first.next_cursor },
      false,
    );
    expect(rest.entries.map((e: { kind: string }) => e.kind)).toEqual(['RELEASE', 'CLAIM', 'PUBLISH']);
    expect(rest.next_cursor).toBeNull();
    const foreign = await refused(p1, 'task_history', { task_id: taskId, cursor: first.next_cursor }, false);
    expect(foreign.code).toBe('CURSOR_INVALID');

    await publish(coord, campaignId, { title: 'Second' });
    await publish(coord, campaignId, { title: 'Third' });
    const page1 = await ok(coord, 'task_list', { campaign_id: campaignId, limit: 2 }, false);
    expect(page1.tasks.map((t: { title: string }) => t.title)).toEqual(['Third', 'Second']);
    const page2 = await ok(
      coord,
      'task_list',
      { campaign_id: campaignId, limit: 2, cursor: page1.next_cursor },
      false,
    );
    expect(page2.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([taskId]);
    const otherFilter = await refused(
      coord,
      'task_list',
      { campaign_id: campaignId, status: 'OPEN', limit: 2, cursor: page1.next_cursor },
      false,
    );
    expect(otherFilter.code).toBe('CURSOR_INVALID');
  });
});

describe('visibility of tasks', () => {
  it('under TASK_SCOPED hides a task another participant holds, and shows open ones', async () => {
    const { coord, p1, p2, taskId, campaignId } = await crew({ visibility: 'TASK_SCOPED' });
    const { task_id: reservedId } = await publish(coord, campaignId, {
      title: 'For p1',
      assignee_id: p1.agentId,
    });
    const openIds = (await ok(p2, 'task_list', {}, false)).tasks.map((t: { task_id: string }) => t.task_id);
    expect(openIds).toContain(taskId);
    expect(openIds).not.toContain(reservedId);

    await ok(p1, 'task_claim', { task_id: taskId });
    const listed = (await ok(p2, 'task_list', {}, false)).tasks.map((t: { task_id: string }) => t.task_id);
    expect(listed).not.toContain(taskId);
    expect((await refused(p2, 'task_get', { task_id: taskId }, false)).code).toBe('NOT_FOUND');
    expect((await refused(p2, 'task_history', { task_id: taskId }, false)).code).toBe('NOT_FOUND');
    // Claiming it anyway says it is taken, without naming who took it.
    const late = await refused(p2, 'task_claim', { task_id: taskId });
    expect(late.code).toBe('TASK_ALREADY_CLAIMED');
    expect(late.details.agent_id).toBeUndefined();
    // The coordinator sees everything; the holder sees its own task.
    expect((await ok(coord, 'task_list', { status: 'CLAIMED' }, false)).tasks).toHaveLength(1);
    const mine = await ok(p1, 'task_list', { mine: true }, false);
    expect(mine.tasks.map((t: { task_id: string }) => t.task_id).sort()).toEqual([reservedId, taskId].sort());
  });

  it('under BLIND_EXPERIMENT tells a participant a task is held, never by whom', async () => {
    const { coord, p1, p2, taskId } = await crew({ visibility: 'BLIND_EXPERIMENT' });
    await ok(p1, 'task_claim', { task_id: taskId });
    const seen = await get(p2, taskId);
    expect(seen.lease).toMatchObject({ held: true, agent_id: null });
    expect(JSON.stringify(seen)).not.toContain(p1.agentId);
    expect(JSON.stringify(await history(p2, taskId))).not.toContain(p1.agentId);
    const late = await refused(p2, 'task_claim', { task_id: taskId });
    expect(late.details.agent_id).toBeUndefined();
    expect((await get(coord, taskId)).lease.agent_id).toBe(p1.agentId);
  });

  it('hides tasks of campaigns the caller is not in', async () => {
    const { taskId } = await crew();
    const outsider = await newMember(server);
    await campaignWith(outsider, []);
    expect((await refused(outsider, 'task_get', { task_id: taskId }, false)).code).toBe('NOT_FOUND');
    expect((await refused(outsider, 'task_claim', { task_id: taskId })).code).toBe('NOT_FOUND');
  });
});
