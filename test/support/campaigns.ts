import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';
import { callTool, connectClient, createAgent, type TestAgent } from './factories.ts';
import type { TestServer } from './test-server.ts';

/** Helpers for campaign tests: agents with clients, and campaigns made through the real tools. */

export const key = () => `key-${randomUUID()}`;

export interface Member extends TestAgent {
  client: Client;
}

/** A READ agent (of a new owner, or of `ownerEmail`) connected over MCP. */
export async function newMember(server: TestServer, ownerEmail?: string): Promise<Member> {
  const agent = await createAgent(server.app.services.identity, {
    mode: 'READ',
    ...(ownerEmail ? { ownerEmail } : {}),
  });
  return { ...agent, client: await connectClient(server.url, agent.key) };
}

/**
 * An identity without public reading, of the coordinator's owner: the coordinator invites it
 * while it is inert, its owner accepts the invitation in the console (which activates it for
 * campaign work, mode CAMPAIGN), and it joins. It acts only as a member.
 */
export async function inertMember(
  server: TestServer,
  coordinator: Member,
  campaignId: string,
): Promise<Member> {
  const agent = await createAgent(server.app.services.identity, { ownerEmail: coordinator.ownerEmail });
  const member = { ...agent, client: await connectClient(server.url, agent.key) };
  const invited = await ok(coordinator, 'campaign_invite', {
    campaign_id: campaignId,
    agent_id: agent.agentId,
    role: 'PARTICIPANT',
  });
  expect(invited.membership).toBe('OWNER_PENDING');
  const owner = await server.app.services.identity.requireOwner(agent.ownerEmail);
  await server.app.services.campaigns.decideInvitation(owner.id, campaignId, agent.agentId, true);
  await ok(member, 'campaign_join', { campaign_id: campaignId });
  return member;
}

/** Calls a tool that must succeed, with a fresh idempotency_key when `mutates`. */
export async function ok(m: Member, tool: string, args: Record<string, unknown> = {}, mutates = true) {
  const res = await callTool(m.client, tool, mutates ? { ...args, idempotency_key: key() } : args);
  expect(res.isError, `${tool}: ${JSON.stringify(res.body)}`).toBe(false);
  return res.body;
}

/** Calls a tool that must fail; returns its error object. */
export async function refused(m: Member, tool: string, args: Record<string, unknown> = {}, mutates = true) {
  const res = await callTool(m.client, tool, mutates ? { ...args, idempotency_key: key() } : args);
  expect(res.isError, `${tool} should fail: ${JSON.stringify(res.body)}`).toBe(true);
  return res.body.error as {
    code: string;
    message: string;
    details: Record<string, unknown>;
    next_action: string;
  };
}

/** A campaign created by `coordinator`, with `members` joined as participants. */
export async function campaignWith(
  coordinator: Member,
  members: Member[],
  settings: Record<string, unknown> = {},
): Promise<string> {
  const created = await ok(coordinator, 'campaign_create', {
    title: 'Moorland survey',
    objective: 'Find and verify facts about moorland birds.',
    allow_agent_publish: false,
    visibility: 'SHARED',
    participation: 'OPEN',
    ...settings,
  });
  const campaignId = created.campaign_id as string;
  // Joining an OPEN campaign is direct; elsewhere it is an application the coordinator admits.
  for (const m of members) {
    const joined = await ok(m, 'campaign_join', { campaign_id: campaignId });
    if (joined.membership === 'APPLIED') {
      await ok(coordinator, 'campaign_invite', {
        campaign_id: campaignId,
        agent_id: m.agentId,
        role: 'PARTICIPANT',
      });
    }
  }
  return campaignId;
}

/** Every required condition term, with a time budget of `minutes`. */
export function conditions(minutes = 60): Record<string, unknown> {
  return {
    available_data: 'Public web pages about moorland birds.',
    authorized_scope: 'Read public pages only; no sign-in, no contact with people.',
    deliverable: 'A short summary with verbatim quotations.',
    reproduction_steps: 'Open each cited evidence record and find the quotation.',
    time_budget_minutes: minutes,
    stop_conditions: 'Stop when a source asks for a sign-in or the budget runs out.',
    reviewer: 'the campaign coordinator',
  };
}

/** Publishes a task as `m` and returns its id. */
export async function publishTask(m: Member, campaignId: string, extra: Record<string, unknown> = {}) {
  const published = await ok(m, 'task_publish', {
    campaign_id: campaignId,
    title: 'Find a fact',
    objective: 'Find one verifiable fact.',
    acceptance: 'A quotation that matches a recorded source.',
    conditions: conditions(),
    ...extra,
  });
  return published.task_id as string;
}

/** Publishes a task as `coordinator`, has `worker` claim it, and returns the task and lease ids. */
export async function claimedTask(coordinator: Member, worker: Member, campaignId: string) {
  const taskId = await publishTask(coordinator, campaignId);
  const claimed = await ok(worker, 'task_claim', { task_id: taskId });
  return { taskId, leaseId: claimed.lease.lease_id as string };
}
