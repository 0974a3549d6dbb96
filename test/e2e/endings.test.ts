import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepStoppedHolders } from '../../src/domains/campaigns/index.ts';
import {
  campaignWith,
  claimedTask,
  conditions,
  key,
  type Member,
  newMember,
  ok,
  publishTask,
  refused,
} from '../support/campaigns.ts';
import { callTool, connectClient, createAgent } from '../support/factories.ts';
import { balance, credit, expectBooksBalanced, ownerApi, ownerTokenOf } from '../support/rewards.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 39: things end. Campaigns close, members leave or are removed, an owner's "stop"
 * (mode NONE, suspension, revocation) stops the identity in its campaigns too, and only an owner
 * activates an inert identity. Everything is reached the way a user reaches it: tools, the owner
 * API, the sweep every replica runs.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function eventsOf(m: Member, campaignId: string) {
  const watched = await ok(
    m,
    'events_watch',
    { campaign_id: campaignId, wait_seconds: 1, limit: 200 },
    false,
  );
  return watched.events as Array<{ kind: string; payload: Record<string, unknown>; task_id: string | null }>;
}

async function taskOf(m: Member, taskId: string) {
  return (await ok(m, 'task_get', { task_id: taskId }, false)) as Record<string, unknown> & {
    status: string;
    reward?: { status: string };
  };
}

describe('closing a campaign', () => {
  it('the owner of record closes it: unfinished work is cancelled and refunded, records stay readable', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker]);
    await credit(server, coordinator, 'POINTS', 1_000);
    const token = await ownerTokenOf(server, coordinator);
    const paid = await ok(coordinator, 'task_publish', {
      campaign_id: campaignId,
      title: 'Paid fact',
      objective: 'Find one verifiable fact.',
      acceptance: 'A quotation that matches a recorded source.',
      conditions: conditions(),
      reward_points: 100,
    });
    const paidTask = paid.task_id as string;
    const claimed = await ok(worker, 'task_claim', { task_id: paidTask });
    const openTask = await publishTask(coordinator, campaignId);
    expect(await balance(server, coordinator, 'POINTS')).toBe(900);

    // Another owner cannot close it (nor learn that it exists).
    const stranger = await ownerTokenOf(server, worker);
    const foreign = await ownerApi(server, stranger, 'POST', `/v1/campaigns/${campaignId}/close`, {});
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);

    const closed = await ownerApi(server, token, 'POST', `/v1/campaigns/${campaignId}/close`, {
      reason: 'objective met',
    });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({
      campaign_id: campaignId,
      status: 'CLOSED',
      close_reason: 'objective met',
      already_closed: false,
      settled: { tasks_cancelled: 2, leases_ended: 1, rewards_refunded: 1, more: false },
    });
    expect(closed.body.closed_at).toEqual(expect.any(String));
    // Escrow and fee came back: nothing was paid for.
    expect(await balance(server, coordinator, 'POINTS')).toBe(1_000);
    await expectBooksBalanced(server);

    // The worker's lease ended with the task; it reads what happened on the ledger.
    const beat = await refused(
      worker,
      'task_heartbeat',
      { task_id: paidTask, lease_id: claimed.lease.lease_id },
      false,
    );
    expect([beat.code, beat.details.reason]).toEqual(['LEASE_NOT_CURRENT', 'CANCELLED']);
    const events = await eventsOf(worker, campaignId);
    const kinds = events.map((e) => e.kind);
    expect(kinds).toContain('CAMPAIGN_CLOSED');
    expect(
      events
        .filter((e) => e.kind === 'TASK_CANCELLED')
        .map((e) => e.task_id)
        .sort(),
    ).toEqual([paidTask, openTask].sort());
    expect(kinds).toContain('REWARD_REFUNDED');
    expect((await taskOf(worker, paidTask)).status).toBe('CANCELLED');

    // A member of closed campaigns only keeps its read tools; changes are not offered, and why.
    const { tools } = await worker.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['task_get', 'events_watch', 'campaign_status', 'campaign_leave']),
    );
    expect(names).not.toContain('task_claim');
    expect(names).not.toContain('task_publish');
    const former = await refused(worker, 'task_claim', { task_id: openTask });
    expect([former.code, former.details.why]).toEqual([
      'TOOL_NOT_AVAILABLE',
      expect.stringContaining('has closed'),
    ]);
    const whoami = await ok(worker, 'identity_whoami', {}, false);
    expect(whoami.campaigns).toEqual([]);

    // Members of another, open campaign are offered the tools, and the closed one refuses them.
    await campaignWith(coordinator, [worker]);
    for (const [m, tool, args] of [
      [
        coordinator,
        'task_publish',
        { campaign_id: campaignId, title: 'Late', objective: 'x', acceptance: 'y', conditions: conditions() },
      ],
      [worker, 'task_claim', { task_id: openTask }],
      [worker, 'message_append', { campaign_id: campaignId, type: 'NOTE', content: 'still here?' }],
      [
        coordinator,
        'campaign_invite',
        { campaign_id: campaignId, agent_id: worker.agentId, role: 'COORDINATOR' },
      ],
    ] as const) {
      expect((await refused(m, tool, args as Record<string, unknown>)).code, tool).toBe('CAMPAIGN_CLOSED');
    }
    const late = await newMember(server);
    expect((await refused(late, 'campaign_join', { campaign_id: campaignId })).code).toBe('CAMPAIGN_CLOSED');
    // The owner's doors refuse new work in it as well, each with CAMPAIGN_CLOSED.
    for (const [path, body] of [
      [`/v1/campaigns/${campaignId}/messages`, { type: 'NOTE', content: 'One more thing.' }],
      [
        '/v1/boards',
        {
          slug: `late-${Date.now()}`,
          title: 'Late',
          purpose: 'WORK',
          campaign_id: campaignId,
          task_ids: [openTask],
        },
      ],
      ['/v1/research/imports', { campaign_id: campaignId, format: 'log', text: 'a line\n' }],
      [`/v1/research/campaigns/${campaignId}/settings`, { tlp: 'TLP:RED' }],
    ] as const) {
      const res = await ownerApi(server, token, 'POST', path, body);
      expect([res.status, res.body.error?.code], path).toEqual([409, 'CAMPAIGN_CLOSED']);
    }
    const publish = await ownerApi(server, token, 'POST', `/v1/campaigns/${campaignId}/close`, {});
    expect(publish.body).toMatchObject({ status: 'CLOSED', already_closed: true });
  });
});

describe('membership ends', () => {
  it('an agent leaves: its lease ends and the task reopens for others; its messages stay', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const other = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker, other]);
    const { taskId } = await claimedTask(coordinator, worker, campaignId);
    await ok(worker, 'message_append', { campaign_id: campaignId, type: 'NOTE', content: 'leaving soon' });

    const left = await ok(worker, 'campaign_leave', { campaign_id: campaignId });
    expect(left).toMatchObject({
      membership: 'LEFT',
      ended_how: 'LEFT',
      leases_ended: [{ task_id: taskId }],
    });
    expect(left.next_steps[0].tool).toBe('campaign_list');
    // Another member takes the reopened task at once.
    await ok(other, 'task_claim', { task_id: taskId });
    // In no campaign now, it is offered no campaign tools; campaign_list still shows where it was.
    const refusal = await refused(worker, 'task_list', { campaign_id: campaignId }, false);
    expect(refusal.code).toBe('TOOL_NOT_AVAILABLE');
    const listed = await ok(worker, 'campaign_list', {}, false);
    expect(listed.campaigns).toEqual([
      expect.objectContaining({ campaign_id: campaignId, membership: 'LEFT' }),
    ]);

    const events = await eventsOf(coordinator, campaignId);
    expect(events.find((e) => e.kind === 'MEMBER_LEFT')?.payload).toMatchObject({
      agent_id: worker.agentId,
      leases_ended: 1,
    });
    const released = events.find((e) => e.kind === 'TASK_RELEASED');
    expect(released?.payload).toMatchObject({ task_id: taskId, reason: 'MEMBERSHIP_ENDED' });
    const messages = await ok(coordinator, 'context_read', { campaign_id: campaignId }, false);
    expect(JSON.stringify(messages)).toContain('leaving soon');
    // Joining again works the way joining always does.
    expect((await ok(worker, 'campaign_join', { campaign_id: campaignId })).membership).toBe('ACTIVE');
  });

  it('a coordinator removes a member with a reason; a participant cannot', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const peer = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker, peer]);
    const { taskId, leaseId } = await claimedTask(coordinator, worker, campaignId);

    const byPeer = await refused(peer, 'campaign_member_remove', {
      campaign_id: campaignId,
      agent_id: worker.agentId,
      reason: 'no',
    });
    expect(byPeer.code).toBe('TOOL_NOT_AVAILABLE');
    const self = await refused(coordinator, 'campaign_member_remove', {
      campaign_id: campaignId,
      agent_id: coordinator.agentId,
      reason: 'me',
    });
    expect(self.code).toBe('VALIDATION_FAILED');

    const removed = await ok(coordinator, 'campaign_member_remove', {
      campaign_id: campaignId,
      agent_id: worker.agentId,
      reason: 'off topic',
    });
    expect(removed).toMatchObject({
      ended_how: 'REMOVED',
      leases_ended: [{ task_id: taskId, lease_id: leaseId }],
    });
    // In no campaign now, the worker is offered no campaign tools at all.
    const gone = await refused(worker, 'task_heartbeat', { task_id: taskId, lease_id: leaseId });
    expect(gone.code).toBe('TOOL_NOT_AVAILABLE');
    const again = await refused(coordinator, 'campaign_member_remove', {
      campaign_id: campaignId,
      agent_id: worker.agentId,
      reason: 'twice',
    });
    expect(again.code).toBe('NOT_A_MEMBER');
    const events = await eventsOf(coordinator, campaignId);
    expect(events.find((e) => e.kind === 'MEMBER_REMOVED')?.payload).toMatchObject({ reason: 'off topic' });
  });

  it('the owner of record removes; the member’s own owner withdraws; nobody else can', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const other = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker, other]);
    const recordOwner = await ownerTokenOf(server, coordinator);
    const workerOwner = await ownerTokenOf(server, worker);
    const path = (agent: string) => `/v1/campaigns/${campaignId}/members/${agent}/remove`;

    // The worker's owner may withdraw only its own agent; it learns nothing of the others, nor
    // of a campaign its agent has nothing to do with.
    const notTheirs = await ownerApi(server, workerOwner, 'POST', path(other.agentId), {});
    expect([notTheirs.status, notTheirs.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const unrelated = await campaignWith(other, []);
    const probe = await ownerApi(
      server,
      workerOwner,
      'POST',
      `/v1/campaigns/${unrelated}/members/${worker.agentId}/remove`,
      {},
    );
    expect([probe.status, probe.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const withdrawn = await ownerApi(server, workerOwner, 'POST', path(worker.agentId), {
      reason: 'needed elsewhere',
    });
    expect([withdrawn.status, withdrawn.body.ended_how]).toEqual([200, 'WITHDRAWN']);
    const removed = await ownerApi(server, recordOwner, 'POST', path(other.agentId), {});
    expect([removed.status, removed.body.ended_how]).toEqual([200, 'REMOVED']);
    const members = await ownerApi(server, recordOwner, 'GET', `/v1/campaigns/${campaignId}`);
    const states = Object.fromEntries(
      (members.body.members as Array<{ agent_id: string; membership: string }>).map((m) => [
        m.agent_id,
        m.membership,
      ]),
    );
    expect(states).toMatchObject({
      [worker.agentId]: 'LEFT',
      [other.agentId]: 'LEFT',
      [coordinator.agentId]: 'ACTIVE',
    });
    const events = await eventsOf(coordinator, campaignId);
    const withdrawal = events.find((e) => e.kind === 'MEMBER_WITHDRAWN');
    expect(withdrawal?.payload).toMatchObject({ agent_id: worker.agentId, reason: 'needed elsewhere' });
  });
});

describe("an owner's stop stops everything", () => {
  it('mode NONE makes a member inert at its next call; its lease is released by the sweep', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker]);
    const { taskId } = await claimedTask(coordinator, worker, campaignId);
    const token = await ownerTokenOf(server, worker);

    const set = await ownerApi(server, token, 'POST', `/v1/agents/${worker.agentId}/mode`, { mode: 'NONE' });
    expect(set.body).toMatchObject({ mode: 'NONE', active: false });
    const whoami = await ok(worker, 'identity_whoami', {}, false);
    expect(whoami).toMatchObject({
      active: false,
      active_through: [],
      inactive_reason: { code: 'NO_MODE_ACTIVATED' },
    });
    const described = await ok(worker, 'capabilities_describe', {}, false);
    expect(JSON.stringify(described)).toContain('NO_MODE_ACTIVATED');
    const { tools } = await worker.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['capabilities_describe', 'identity_whoami']);
    for (const tool of ['task_claim', 'fetch_text', 'task_list']) {
      const r = await callTool(worker.client, tool, {
        task_id: taskId,
        url: 'https://example.org/',
        declared_purpose: 'check',
        idempotency_key: key(),
      });
      expect(r.body.error?.code, tool).toBe('TOOL_NOT_AVAILABLE');
    }
    // The console's list says the same.
    const list = await server.app.services.management.listIdentities(
      (await server.app.services.identity.requireOwner(worker.ownerEmail)).id,
    );
    expect(list.find((a) => a.agent_id === worker.agentId)?.active).toBe(false);

    const swept = await sweepStoppedHolders(server.database, new Date(), { campaignId });
    expect(swept.stopped_released).toBe(1);
    expect((await taskOf(coordinator, taskId)).status).toBe('OPEN');
    const events = await eventsOf(coordinator, campaignId);
    expect(events.find((e) => e.kind === 'TASK_RELEASED')?.payload).toMatchObject({
      reason: 'HOLDER_INACTIVE',
    });

    // Activating it again (campaign work only) brings its membership back.
    await ownerApi(server, token, 'POST', `/v1/agents/${worker.agentId}/mode`, { mode: 'CAMPAIGN' });
    const back = await ok(worker, 'identity_whoami', {}, false);
    expect(back).toMatchObject({ active: true, mode: 'CAMPAIGN', active_through: ['CAMPAIGN_MEMBERSHIP'] });
    await ok(worker, 'task_claim', { task_id: taskId });
  });

  it('a suspension gives its reason, keeps the mode and ends with the owner', async () => {
    const worker = await newMember(server);
    const token = await ownerTokenOf(server, worker);
    const path = `/v1/agents/${worker.agentId}`;
    const empty = await ownerApi(server, token, 'POST', `${path}/suspend`, { reason: '' });
    expect(empty.status).toBe(422);
    const suspended = await ownerApi(server, token, 'POST', `${path}/suspend`, { reason: 'billing review' });
    expect(suspended.body).toMatchObject({ status: 'SUSPENDED', mode: 'READ', active: false });
    const whoami = await ok(worker, 'identity_whoami', {}, false);
    expect(whoami.inactive_reason).toMatchObject({ code: 'SUSPENDED' });
    expect(whoami.inactive_reason.message).toContain('billing review');
    expect(whoami.next_steps[0].action).toContain(worker.ownerEmail);
    expect(
      (
        await callTool(worker.client, 'fetch_text', {
          url: 'https://example.org/',
          declared_purpose: 'check',
        })
      ).body.error.code,
    ).toBe('TOOL_NOT_AVAILABLE');
    const lifted = await ownerApi(server, token, 'POST', `${path}/unsuspend`, {});
    expect(lifted.body).toMatchObject({ status: 'ACTIVE', mode: 'READ', active: true });
    expect(await ok(worker, 'identity_whoami', {}, false)).toMatchObject({ active: true, mode: 'READ' });
    const twice = await ownerApi(server, token, 'POST', `${path}/unsuspend`, {});
    expect([twice.status, twice.body.error.code]).toEqual([409, 'CONFLICT']);
    // Someone else's identity is not found.
    const stranger = await ownerTokenOf(server, await newMember(server));
    const foreign = await ownerApi(server, stranger, 'POST', `${path}/suspend`, { reason: 'x' });
    expect(foreign.status).toBe(404);
  });

  it('a revoked identity is told not to retry, and who can help', async () => {
    const agent = await createAgent(server.app.services.identity, { mode: 'READ' });
    await server.app.services.identity.revokeAgent(agent.agentId);
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agent.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { code: string; retryable: boolean; next_action: string } };
    expect(body.error).toMatchObject({ code: 'UNAUTHENTICATED', retryable: false });
    expect(body.error.next_action).toContain(agent.ownerEmail);
  });
});

describe('only owners activate', () => {
  it("a coordinator's invitation of its inert sibling waits for their owner, whose acceptance activates it", async () => {
    const coordinator = await newMember(server);
    const campaignId = await campaignWith(coordinator, []);
    const sibling = await createAgent(server.app.services.identity, { ownerEmail: coordinator.ownerEmail });
    const client = await connectClient(server.url, sibling.key);
    const member = { ...sibling, client };

    const invited = await ok(coordinator, 'campaign_invite', {
      campaign_id: campaignId,
      agent_id: sibling.agentId,
      role: 'PARTICIPANT',
    });
    expect(invited.membership).toBe('OWNER_PENDING');
    // Still inert: nothing but describing itself, and it cannot join by itself.
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['capabilities_describe', 'identity_whoami']);
    expect((await refused(member, 'campaign_join', { campaign_id: campaignId })).code).toBe(
      'TOOL_NOT_AVAILABLE',
    );
    const whoami = await ok(member, 'identity_whoami', {}, false);
    expect(whoami.active).toBe(false);
    expect(whoami.next_steps[0].action).toContain('must first accept');

    const token = await ownerTokenOf(server, coordinator);
    const accepted = await ownerApi(
      server,
      token,
      'POST',
      `/v1/campaigns/${campaignId}/invitations/${sibling.agentId}/decision`,
      { decision: 'ACCEPT' },
    );
    expect(accepted.body.membership).toBe('INVITED');
    const joined = await ok(member, 'campaign_join', { campaign_id: campaignId });
    expect(joined.membership).toBe('ACTIVE');
    expect(await ok(member, 'identity_whoami', {}, false)).toMatchObject({ active: true, mode: 'CAMPAIGN' });
    // Campaign work only: no public reading outside a lease.
    const read = await refused(
      member,
      'fetch_text',
      { url: 'https://example.org/', declared_purpose: 'check' },
      false,
    );
    expect(read.code).toBe('LEASE_REQUIRED');
  });
});

describe("SPEC's remaining kinds", () => {
  it('a read refused under a lease is on the ledger with its receipt', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker]);
    const { taskId } = await claimedTask(coordinator, worker, campaignId);
    const refusal = await refused(
      worker,
      'fetch_text',
      { url: 'http://10.1.2.3/internal', declared_purpose: 'check', task_id: taskId },
      false,
    );
    expect(refusal.code).toBe('ADDRESS_NOT_PUBLIC');
    const receipt = refusal.details.policy_receipt_id;
    const events = await eventsOf(coordinator, campaignId);
    const logged = events.find((e) => e.kind === 'READ_REFUSED');
    expect(logged).toMatchObject({
      task_id: taskId,
      payload: { policy_receipt_id: receipt, reason_code: 'ADDRESS_NOT_PUBLIC', tool: 'fetch_text' },
    });
    expect(JSON.stringify(logged)).not.toContain('10.1.2.3');
  });

  it('policy_explain on a URL not read stores a simulate receipt of what a read would be decided', async () => {
    const reader = await newMember(server);
    // Never resolved nor requested: a simulation contacts nothing.
    const allowed = await ok(reader, 'policy_explain', { url: 'https://cairn-never.invalid/page' }, false);
    expect(allowed).toMatchObject({
      decision: 'SIMULATE',
      would_decide: 'ALLOW_ONCE',
      reason_code: 'PUBLIC_READ',
      inputs: { not_checked: expect.stringContaining('robots.txt') },
      next_steps: [{ tool: 'fetch_text', arguments: { url: 'https://cairn-never.invalid/page' } }],
    });
    const denied = await ok(reader, 'policy_explain', { url: 'http://10.9.8.7/admin' }, false);
    expect(denied).toMatchObject({
      decision: 'SIMULATE',
      would_decide: 'DENY',
      reason_code: 'ADDRESS_NOT_PUBLIC',
    });
    expect(Array.isArray(denied.allowed_alternatives)).toBe(true);
    const again = await ok(reader, 'policy_explain', { receipt_id: denied.receipt_id }, false);
    expect(again).toMatchObject({ decision: 'SIMULATE', reason_code: 'ADDRESS_NOT_PUBLIC' });
    const both = await refused(
      reader,
      'policy_explain',
      { receipt_id: denied.receipt_id, url: 'https://a.example/' },
      false,
    );
    expect(both.code).toBe('VALIDATION_FAILED');
  });
});
