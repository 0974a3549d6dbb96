import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { callTool, connectClient, uniqueEmail } from '../support/factories.ts';
import { ARTICLE_QUOTE, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { DEVICE_GRANT } from '../support/oauth.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 13 item 9, the cold-agent walk: two agents that know only the base URL go from pairing
 * to a VERIFIED task, reading nothing but what Cairn answers. Every call a walker makes must be
 * named by the answer it got just before (next_steps, next_action, next, allowed_alternatives,
 * or the public documents it started from); one deliberate wrong move at each stage must itself
 * answer with the way forward. The test fails as soon as an answer stops naming the next move.
 */

let site: FixtureSite;
let server: TestServer;
const clock = new FakeClock(new Date());
let toolNames: string[];
beforeAll(async () => {
  site = await startFixtureSite();
  server = await startTestServer({ clock, env: site.env });
  const published = await fetch(`${server.url}/v1/public/tools?format=json`);
  toolNames = ((await published.json()) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

interface Move {
  tool?: string;
  action?: string;
  arguments?: Record<string, unknown>;
}

/** The tools an answer names, each with the arguments it gives for it (merged when named twice). */
function namedIn(answer: unknown): Map<string, Record<string, unknown>> {
  const named = new Map<string, Record<string, unknown>>();
  const a = (answer ?? {}) as Record<string, unknown>;
  const error = (a.error ?? {}) as Record<string, unknown>;
  const moves = [
    ...((a.next_steps as Move[] | undefined) ?? []),
    ...((error.allowed_alternatives as Move[] | undefined) ?? []),
  ];
  for (const move of moves) {
    if (move.tool) named.set(move.tool, { ...named.get(move.tool), ...move.arguments });
  }
  // Tools named in words: the guidance texts only, never page text or other agents' content.
  const words = JSON.stringify([
    a.next_steps,
    a.next,
    a.next_step,
    error.next_action,
    typeof answer === 'string' ? answer : null,
  ]);
  for (const name of toolNames) {
    if (!named.has(name) && new RegExp(`\\b${name}\\b`).test(words)) named.set(name, {});
  }
  return named;
}

let keys = 0;

/** An agent that only calls what the last answer named. */
class Walker {
  private named = new Map<string, Record<string, unknown>>();
  readonly trail: string[] = [];

  constructor(
    readonly name: string,
    readonly agentId: string,
    private readonly client: Client,
    start: string,
  ) {
    this.named = namedIn(start);
  }

  /** The arguments the last answer gave for `tool`. */
  given(tool: string): Record<string, unknown> {
    return this.named.get(tool) ?? {};
  }

  /** A right move: `tool` must have been named by the previous answer; returns the answer. */
  async next(tool: string, args: Record<string, unknown> = {}, mutates = false) {
    expect(
      [...this.named.keys()],
      `${this.name} after ${this.trail.at(-1) ?? 'the documents'}: ${tool} was not named`,
    ).toContain(tool);
    const body = await this.call(tool, { ...this.given(tool), ...args }, mutates);
    expect(body.error, `${this.name}: ${tool} failed: ${JSON.stringify(body.error)}`).toBeUndefined();
    return body;
  }

  /** A deliberate wrong move: refused with `code`, and the refusal names the way forward. */
  async wrong(tool: string, args: Record<string, unknown>, code: string, mutates = false) {
    const body = await this.call(tool, args, mutates);
    expect(body.error?.code, `${this.name}: ${tool} should be refused`).toBe(code);
    expect(this.named.size, `${this.name}: the ${code} refusal of ${tool} names no tool`).toBeGreaterThan(0);
    return body;
  }

  private async call(tool: string, args: Record<string, unknown>, mutates: boolean) {
    const r = await callTool(
      this.client,
      tool,
      mutates ? { ...args, idempotency_key: `cold-walk-${++keys}` } : args,
    );
    this.trail.push(tool);
    this.named = namedIn(r.body);
    // biome-ignore lint/suspicious/noExplicitAny: the walk reads into arbitrary answers
    return r.body as Record<string, any>;
  }
}

const form = (fields: Record<string, string>) =>
  fetch(`${server.url}/oauth/${fields.grant_type ? 'token' : 'device_authorization'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });

/**
 * Device pairing as the guide describes it, with the wrong move of polling before the owner
 * decided; the owner approves (activating public reading or not) as a person would in the console.
 */
async function pair(name: string, ownerId: string, activateRead: boolean, guide: string): Promise<Walker> {
  expect(guide).toContain('/oauth/device_authorization');
  const started = (await (await form({ display_name: name, runtime: 'cold-walk' })).json()) as Record<
    string,
    string
  >;
  expect(started.say_to_user).toContain(started.user_code);

  const early = await form({ grant_type: DEVICE_GRANT, device_code: started.device_code as string });
  expect(early.status).toBe(400);
  const pending = (await early.json()) as { error: string; error_description: string };
  expect(pending.error).toBe('authorization_pending');
  expect(pending.error_description).toMatch(/poll again/);

  const decided = await server.app.services.device.decide(ownerId, started.user_code as string, {
    approve: true,
    activateRead,
  });
  clock.advance(Number(started.interval) * 1000 + 1000);
  const granted = await form({ grant_type: DEVICE_GRANT, device_code: started.device_code as string });
  expect(granted.status).toBe(200);
  const { access_token } = (await granted.json()) as { access_token: string };
  const client = await connectClient(server.url, access_token);
  return new Walker(name, decided.agent_id as string, client, guide);
}

describe('the cold-agent walk', () => {
  it('goes from /llms.txt to a VERIFIED task with every move named by the answer before it', async () => {
    const llms = await (await fetch(`${server.url}/llms.txt`)).text();
    expect(llms).toContain(`${server.url}/guide`);
    const guide = await (await fetch(`${server.url}/guide`)).text();
    expect(guide).toContain('capabilities_describe');

    const ownerEmail = uniqueEmail();
    const { owner_id: ownerId } = await server.app.services.identity.addOwner(
      ownerEmail,
      'correct horse battery staple',
    );
    const lead = await pair('Lead researcher', ownerId, true, guide);
    const worker = await pair('Field worker', ownerId, false, guide);

    // The lead: public reading activated; it starts a campaign.
    await lead.next('capabilities_describe');
    await lead.wrong('campaign_create', { title: 'Trail markers' }, 'VALIDATION_FAILED', true);
    const created = await lead.next(
      'campaign_create',
      {
        title: 'Trail markers',
        objective: 'Verify facts about cairns as trail markers.',
        allow_agent_publish: false,
        visibility: 'SHARED',
        participation: 'APPLICATION',
      },
      true,
    );
    const campaignId = created.campaign_id as string;
    expect(lead.given('campaign_invite')).toEqual({ campaign_id: campaignId });

    // The worker: no mode of its own, so nothing but its status until it is invited.
    await worker.next('capabilities_describe');
    expect(worker.given('campaign_join')).toEqual({});

    const role = { role: 'PARTICIPANT' };
    await lead.wrong(
      'campaign_invite',
      { campaign_id: campaignId, agent_id: 'agt_01NOSUCHAGENT', ...role },
      'NOT_FOUND',
      true,
    );
    const invited = await lead.next(
      'campaign_invite',
      { campaign_id: campaignId, agent_id: worker.agentId, ...role },
      true,
    );
    // The worker is inert: a coordinator's invitation waits for its owner, who activates it.
    expect(invited.membership).toBe('OWNER_PENDING');
    await server.app.services.campaigns.decideInvitation(ownerId, campaignId, worker.agentId, true);

    await worker.wrong('task_list', { campaign_id: campaignId }, 'TOOL_NOT_AVAILABLE');
    await worker.next('capabilities_describe');
    expect(worker.given('campaign_join')).toEqual({ campaign_id: campaignId });
    await worker.next('campaign_join', {}, true);

    // The lead publishes the task, after one incomplete attempt.
    const task = {
      campaign_id: campaignId,
      title: 'Find what cairns mark',
      objective: 'Find one verifiable fact about what cairns mark.',
      acceptance: 'A quotation that matches a recorded source.',
    };
    await lead.wrong(
      'task_publish',
      { ...task, conditions: { deliverable: 'A sentence with a quotation.', time_budget_minutes: 60 } },
      'INCOMPLETE',
      true,
    );
    const published = await lead.next(
      'task_publish',
      {
        ...task,
        conditions: {
          available_data: 'Public web pages about cairns.',
          authorized_scope: 'Read public pages only.',
          deliverable: 'A sentence with a verbatim quotation.',
          reproduction_steps: 'Open the cited evidence and find the quotation.',
          time_budget_minutes: 60,
          stop_conditions: 'Stop at any sign-in page.',
          reviewer: 'the lead',
        },
      },
      true,
    );

    // The worker finds it, tries to read before claiming, claims, reads, submits.
    const listed = await worker.next('task_list');
    expect(listed.tasks.map((t: { task_id: string }) => t.task_id)).toContain(published.task_id);
    expect(worker.given('task_claim')).toEqual({ task_id: published.task_id });
    const article = { url: `${site.origin}/article`, declared_purpose: 'Evidence for the cairn task.' };
    await worker.wrong('fetch_text', article, 'LEASE_REQUIRED');
    await worker.next('task_claim', { task_id: published.task_id }, true);
    const read = await worker.next('fetch_text', article);
    expect(worker.given('task_complete')).toMatchObject({ evidence_ids: [read.evidence_id] });
    const wrongQuote = await worker.next(
      'task_complete',
      { claimed_outcome: 'COMPLETE', summary: 'Cairns are "used as lighthouses by passing ships at night".' },
      true,
    );
    expect(wrongQuote.verification?.status ?? wrongQuote.status).toBe('NOT_VERIFIED');
    const done = await worker.next(
      'task_complete',
      {
        evidence_ids: [read.evidence_id],
        claimed_outcome: 'COMPLETE',
        summary: `The source says: "${ARTICLE_QUOTE}".`,
      },
      true,
    );
    expect(done.task_status).toBe('VERIFIED');
  });
});
