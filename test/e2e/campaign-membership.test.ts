import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, newMember, ok, publishTask, refused } from '../support/campaigns.ts';
import { Visitor } from '../support/console-visitor.ts';
import { callTool, connectClient, createAgent, uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Issue 5 item 3: who starts what, invitations across owners, joining and the default campaign. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const toolNames = async (m: { client: { listTools(): Promise<{ tools: Array<{ name: string }> }> } }) =>
  (await m.client.listTools()).tools.map((t) => t.name);

describe('campaign membership', () => {
  it('tells a participant who calls a coordinators tool what to do, and only that', async () => {
    const coordinator = await newMember(server);
    const participant = await newMember(server);
    await campaignWith(coordinator, [participant]);
    for (const tool of ['campaign_invite', 'decision_record']) {
      const args =
        tool === 'campaign_invite'
          ? { agent_id: coordinator.agentId, role: 'PARTICIPANT' }
          : { content: 'Decided.', outcome: 'NOTED' };
      const refusal = await refused(participant, tool, args);
      expect(refusal.code, tool).toBe('TOOL_NOT_AVAILABLE');
      // The same reason for both tools, naming what would help; no advice to activate a mode,
      // which the participant's owner cannot fix this with.
      expect(refusal.next_action, tool).toMatch(/ask a coordinator/);
      expect(refusal.next_action, tool).not.toMatch(/activate/);
      expect(refusal.message, tool).not.toMatch(/invite agents;/);
    }
  });

  it('lets a READ identity create a campaign, becoming its first coordinator, and shows campaign tools after', async () => {
    const a = await newMember(server);
    const before = await toolNames(a);
    expect(before).toContain('campaign_create');
    expect(before).not.toContain('campaign_status');
    const created = await ok(a, 'campaign_create', {
      title: 'Survey',
      objective: 'Count curlews.',
      allow_agent_publish: true,
      visibility: 'SHARED',
      participation: 'APPLICATION',
      budget: { amount: 100, unit: 'USD' },
      scopes: ['rspb.org.uk'],
    });
    expect(created.campaign_id).toMatch(/^cmp_/);
    expect(created.role).toBe('COORDINATOR');
    const after = await toolNames(a);
    expect(after).toEqual(expect.arrayContaining(['campaign_status', 'campaign_invite']));
    // No campaign_id: the default campaign (the one just created).
    const status = await ok(a, 'campaign_status', {}, false);
    expect(status).toMatchObject({
      campaign_id: created.campaign_id,
      your_role: 'COORDINATOR',
      visibility: 'SHARED',
      participation: 'APPLICATION',
      budget: { amount: 100, unit: 'USD' },
      members: { active: 1, coordinators: 1 },
    });
    expect(status.ledger.last_seq).toBeGreaterThanOrEqual(1);
  });

  it('refuses an inert identity and an outsider', async () => {
    const inert = await createAgent(server.app.services.identity);
    const client = await connectClient(server.url, inert.key);
    const res = await callTool(client, 'campaign_create', {
      title: 't',
      objective: 'o',
      allow_agent_publish: false,
      visibility: 'SHARED',
      participation: 'OPEN',
      idempotency_key: 'key-inert-0001',
    });
    expect(res.body.error.code).toBe('TOOL_NOT_AVAILABLE');

    const a = await newMember(server);
    const campaignId = await campaignWith(a, []);
    const outsider = await newMember(server);
    await ok(outsider, 'campaign_create', {
      title: 'Own',
      objective: 'x',
      allow_agent_publish: false,
      visibility: 'SHARED',
      participation: 'OPEN',
    });
    const err = await refused(outsider, 'campaign_status', { campaign_id: campaignId }, false);
    expect(err.code).toBe('NOT_A_MEMBER');
  });

  it("invites the same owner's agent directly, and another owner's only after that owner accepts", async () => {
    const email = uniqueEmail();
    await server.app.services.identity.addOwner(email, 'correct horse battery staple');
    const coordinator = await newMember(server, email);
    const sibling = await newMember(server, email);
    const campaignId = await campaignWith(coordinator, []);

    const same = await ok(coordinator, 'campaign_invite', {
      campaign_id: campaignId,
      agent_id: sibling.agentId,
      role: 'PARTICIPANT',
    });
    expect(same.membership).toBe('INVITED');
    expect((await ok(sibling, 'campaign_join', { campaign_id: campaignId })).membership).toBe('ACTIVE');

    const otherEmail = uniqueEmail();
    await server.app.services.identity.addOwner(otherEmail, 'correct horse battery staple');
    const stranger = await newMember(server, otherEmail);
    const invited = await ok(coordinator, 'campaign_invite', {
      campaign_id: campaignId,
      agent_id: stranger.agentId,
      role: 'COORDINATOR',
    });
    expect(invited.membership).toBe('OWNER_PENDING');
    const early = await refused(stranger, 'campaign_join', { campaign_id: campaignId });
    expect(early.code).toBe('OWNER_APPROVAL_PENDING');

    const visitor = new Visitor(server.url);
    expect((await visitor.signIn(otherEmail)).status).toBe(303);
    const res = await visitor.api(
      'POST',
      `/v1/campaigns/${campaignId}/invitations/${stranger.agentId}/decision`,
      {
        decision: 'ACCEPT',
      },
    );
    expect(res.status).toBe(200);
    const joined = await ok(stranger, 'campaign_join', { campaign_id: campaignId });
    expect(joined).toMatchObject({ membership: 'ACTIVE', role: 'COORDINATOR' });
  });

  it('joins OPEN campaigns directly and applies to the others; a coordinator admits applicants', async () => {
    const a = await newMember(server);
    const open = await campaignWith(a, [], { participation: 'OPEN' });
    const closed = await campaignWith(a, [], { participation: 'APPLICATION' });
    const b = await newMember(server);
    expect((await ok(b, 'campaign_join', { campaign_id: open })).membership).toBe('ACTIVE');
    expect((await ok(b, 'campaign_join', { campaign_id: closed })).membership).toBe('APPLIED');
    expect((await refused(b, 'campaign_status', { campaign_id: closed }, false)).code).toBe('NOT_A_MEMBER');
    await ok(a, 'campaign_invite', { campaign_id: closed, agent_id: b.agentId, role: 'PARTICIPANT' });
    expect((await ok(b, 'campaign_status', { campaign_id: closed }, false)).your_role).toBe('PARTICIPANT');

    const list = await ok(b, 'campaign_list', {}, false);
    expect(list.campaigns.map((c: { campaign_id: string }) => c.campaign_id).sort()).toEqual(
      [open, closed].sort(),
    );
    // The default is the campaign joined last; joining again as a member switches it.
    expect((await ok(b, 'campaign_status', {}, false)).campaign_id).toBe(open);
    await ok(b, 'campaign_join', { campaign_id: closed });
    expect((await ok(b, 'campaign_status', {}, false)).campaign_id).toBe(closed);
  });

  it('takes campaign_id on task tools too, and refuses a task of another campaign', async () => {
    const a = await newMember(server);
    const first = await campaignWith(a, []);
    const second = await campaignWith(a, []);
    const taskId = await publishTask(a, first);
    expect((await ok(a, 'task_get', { campaign_id: first, task_id: taskId }, false)).task_id).toBe(taskId);
    expect((await refused(a, 'task_get', { campaign_id: second, task_id: taskId }, false)).code).toBe(
      'NOT_FOUND',
    );
    expect((await refused(a, 'task_claim', { campaign_id: second, task_id: taskId })).code).toBe('NOT_FOUND');
    const claimed = await ok(a, 'task_claim', { campaign_id: first, task_id: taskId });
    const leaseId = claimed.lease.lease_id as string;
    expect(leaseId).toMatch(/^lse_/);
    // Every other task tool refuses the wrong campaign the same way, before doing anything.
    const wrong = { campaign_id: second, task_id: taskId };
    const calls: Array<[string, Record<string, unknown>, boolean]> = [
      ['task_history', {}, false],
      ['task_heartbeat', { lease_id: leaseId }, false],
      ['task_edit', { expected_version: 2, title: 'New title' }, true],
      ['task_assign', { expected_version: 2 }, true],
      ['task_release', { lease_id: leaseId, reason: 'OTHER' }, true],
      ['task_delegate', { lease_id: leaseId, assignee_id: a.agentId }, true],
      [
        'task_complete',
        { lease_id: leaseId, evidence_ids: ['evd_X'], claimed_outcome: 'COMPLETE', summary: 'Nothing.' },
        true,
      ],
      ['result_verify', {}, true],
    ];
    for (const [tool, args, mutates] of calls) {
      expect((await refused(a, tool, { ...wrong, ...args }, mutates)).code, tool).toBe('NOT_FOUND');
    }
    // The lease was untouched by all of that.
    expect(
      (await ok(a, 'task_heartbeat', { campaign_id: first, task_id: taskId, lease_id: leaseId }, false))
        .lease_id,
    ).toBe(leaseId);
  });

  it('keeps invitations to coordinators: a participant cannot invite', async () => {
    const a = await newMember(server);
    const b = await newMember(server);
    const campaignId = await campaignWith(a, [b]);
    const c = await newMember(server);
    const res = await callTool(b.client, 'campaign_invite', {
      campaign_id: campaignId,
      agent_id: c.agentId,
      role: 'PARTICIPANT',
      idempotency_key: 'key-participant-invite',
    });
    expect(res.body.error.code).toBe('TOOL_NOT_AVAILABLE');
  });
});
