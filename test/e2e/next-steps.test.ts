import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, conditions, type Member, newMember, ok } from '../support/campaigns.ts';
import { callTool, connectClient, createAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 13 item 3: status that matches reality, and successes that name the next move. Every
 * tool a next step names must be one the caller can call at that moment (it is in its tools/list).
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

interface Step {
  tool?: string;
  action: string;
  arguments?: Record<string, unknown>;
}

/** The steps of an answer, after checking that each tool they name is one `m` may call now. */
async function steps(m: Member, answer: Record<string, unknown>): Promise<Step[]> {
  const next = answer.next_steps as Step[];
  expect(Array.isArray(next), JSON.stringify(answer)).toBe(true);
  const visible = new Set((await m.client.listTools()).tools.map((t) => t.name));
  for (const step of next) {
    if (step.tool) expect(visible.has(step.tool), `${step.tool} is named but not callable`).toBe(true);
  }
  return next;
}

/** An identity with no mode of its own, of `ownerEmail` (or a new owner), connected over MCP. */
async function inert(ownerEmail?: string): Promise<Member> {
  const agent = await createAgent(server.app.services.identity, ownerEmail ? { ownerEmail } : {});
  return { ...agent, client: await connectClient(server.url, agent.key) };
}

describe('status that matches reality', () => {
  it('names the invitation an inert identity can accept once its owner did, and counts membership as active', async () => {
    const coordinator = await newMember(server);
    const campaignId = await campaignWith(coordinator, []);
    const agent = await inert(coordinator.ownerEmail);
    const invited = await ok(coordinator, 'campaign_invite', {
      campaign_id: campaignId,
      agent_id: agent.agentId,
      role: 'PARTICIPANT',
    });
    // Only an owner activates: a coordinator's invitation of an inert sibling waits for it.
    expect(invited.membership).toBe('OWNER_PENDING');
    for (const tool of ['identity_whoami', 'capabilities_describe']) {
      const waiting = (await callTool(agent.client, tool)).body;
      expect(waiting, tool).toMatchObject({
        active: false,
        active_through: [],
        inactive_reason: { code: 'NO_MODE_ACTIVATED' },
        campaigns: [{ campaign_id: campaignId, status: 'OWNER_PENDING' }],
      });
      const named = (await steps(agent, waiting)).map((s) => s.tool).filter(Boolean);
      expect(named).toEqual(['capabilities_describe']);
      expect(waiting.next_steps[0].action).toContain(agent.ownerEmail);
    }
    const owner = await server.app.services.identity.requireOwner(agent.ownerEmail);
    await server.app.services.campaigns.decideInvitation(owner.id, campaignId, agent.agentId, true);

    for (const tool of ['identity_whoami', 'capabilities_describe']) {
      const accepted = (await callTool(agent.client, tool)).body;
      expect(accepted, tool).toMatchObject({
        mode: 'CAMPAIGN',
        active: true,
        active_through: ['MODE'],
        inactive_reason: null,
        campaigns: [
          { campaign_id: campaignId, status: 'INVITED', role: 'PARTICIPANT', title: 'Moorland survey' },
        ],
      });
      const [first] = await steps(agent, accepted);
      expect(first).toMatchObject({ tool: 'campaign_join', arguments: { campaign_id: campaignId } });
      expect(JSON.stringify(accepted.next_steps)).not.toMatch(
        /only identity_whoami and capabilities_describe/,
      );
    }

    await ok(agent, 'campaign_join', { campaign_id: campaignId });
    for (const tool of ['identity_whoami', 'capabilities_describe']) {
      const joined = (await callTool(agent.client, tool)).body;
      expect(joined, tool).toMatchObject({
        active: true,
        active_through: ['CAMPAIGN_MEMBERSHIP'],
        inactive_reason: null,
        campaigns: [{ campaign_id: campaignId, status: 'ACTIVE' }],
      });
      const [first] = await steps(agent, joined);
      expect(first).toMatchObject({
        tool: 'task_list',
        arguments: { campaign_id: campaignId, status: 'OPEN' },
      });
    }
  });

  it("waits for the other owner's acceptance without offering a join that would be refused", async () => {
    const coordinator = await newMember(server);
    const campaignId = await campaignWith(coordinator, []);
    const outsider = await inert();
    const invited = await ok(coordinator, 'campaign_invite', {
      campaign_id: campaignId,
      agent_id: outsider.agentId,
      role: 'PARTICIPANT',
    });
    expect(invited.membership).toBe('OWNER_PENDING');
    const status = (await callTool(outsider.client, 'identity_whoami')).body;
    expect(status.campaigns).toEqual([
      expect.objectContaining({ campaign_id: campaignId, status: 'OWNER_PENDING' }),
    ]);
    const named = (await steps(outsider, status)).map((s) => s.tool).filter(Boolean);
    expect(named).not.toContain('campaign_join');
    expect(status.next_steps[0].action).toContain(outsider.ownerEmail);
  });

  it('counts an active mode and memberships together', async () => {
    const coordinator = await newMember(server);
    const campaignId = await campaignWith(coordinator, []);
    const status = (await callTool(coordinator.client, 'capabilities_describe')).body;
    expect(status).toMatchObject({ active: true, active_through: ['MODE', 'CAMPAIGN_MEMBERSHIP'] });
    const named = (await steps(coordinator, status)).map((s) => s.tool);
    expect(named.slice(0, 2)).toEqual(['task_publish', 'campaign_invite']);
    expect(status.next_steps[0].arguments).toEqual({ campaign_id: campaignId });
  });
});

describe('successes that name the next move', () => {
  it('campaign_create → task_publish and campaign_invite; task_publish → task_claim; task_claim → read and submit', async () => {
    const coordinator = await newMember(server);
    const created = await ok(coordinator, 'campaign_create', {
      title: 'Heath survey',
      objective: 'Verify facts about heathland.',
      allow_agent_publish: false,
      visibility: 'SHARED',
      participation: 'APPLICATION',
    });
    const afterCreate = await steps(coordinator, created);
    expect(afterCreate.map((s) => s.tool)).toEqual(['task_publish', 'campaign_invite']);
    expect(afterCreate[0]?.arguments).toEqual({ campaign_id: created.campaign_id });

    const worker = await newMember(server);
    await campaignWith(coordinator, [], {});
    await ok(worker, 'campaign_join', { campaign_id: created.campaign_id });
    await ok(coordinator, 'campaign_invite', {
      campaign_id: created.campaign_id,
      agent_id: worker.agentId,
      role: 'PARTICIPANT',
    });
    const task = {
      campaign_id: created.campaign_id,
      title: 'Find a fact',
      objective: 'Find one verifiable fact.',
      acceptance: 'A quotation that matches a recorded source.',
      conditions: conditions(),
    };
    const published = await ok(coordinator, 'task_publish', task);
    const afterPublish = await steps(coordinator, published);
    expect(afterPublish[0]).toMatchObject({ tool: 'task_claim', arguments: { task_id: published.task_id } });

    // Reserved for another member: the publisher is not offered a claim that would be refused.
    const reserved = await ok(coordinator, 'task_publish', { ...task, assignee_id: worker.agentId });
    expect((await steps(coordinator, reserved)).map((s) => s.tool)).not.toContain('task_claim');

    const claimed = await ok(worker, 'task_claim', { task_id: published.task_id });
    const afterClaim = await steps(worker, claimed);
    expect(afterClaim.map((s) => s.tool)).toEqual(['fetch_text', 'task_complete', 'task_release']);
    expect(afterClaim[1]?.arguments).toEqual({
      task_id: published.task_id,
      lease_id: claimed.lease.lease_id,
    });
  });
});
