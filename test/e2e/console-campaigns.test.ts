import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conditions, type Member, newMember, ok } from '../support/campaigns.ts';
import { csrfOf, errorOf, type Page, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Issue 5 item 2: owners run campaigns from the console (and POST /v1/campaigns/{id}/messages). */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

/** A signed-in owner with `agents` READ agents of theirs, connected over MCP. */
async function ownerWith(agents = 1): Promise<{ email: string; visitor: Visitor; agents: Member[] }> {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, 'correct horse battery staple');
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email)).status).toBe(303);
  const made: Member[] = [];
  for (let i = 0; i < agents; i++) made.push(await newMember(server, email));
  return { email, visitor, agents: made };
}

const settings = {
  title: 'Moorland survey',
  objective: 'Find and verify facts about moorland birds.',
  budget_amount: '250',
  budget_unit: 'USD',
  scopes: 'rspb.org.uk\r\n\r\nbto.org',
  allow_agent_publish: 'on',
  visibility: 'SHARED',
  participation: 'OPEN',
};

/** Creates a campaign through the console form; returns its id. */
async function createCampaign(v: Visitor, coordinator: Member, extra: Record<string, string> = {}) {
  const res = await v.submit('/console/campaigns/new', '/console/campaigns/new', {
    ...settings,
    coordinator_id: coordinator.agentId,
    ...extra,
  });
  expect(res.status, errorOf(res.text) ?? '').toBe(303);
  const id = /^\/console\/campaigns\/(cmp_[0-9A-Z]{26})\?done=created$/.exec(res.location ?? '')?.[1];
  expect(id).toBeDefined();
  return id as string;
}

/** Posts a form of the campaign page with that page's CSRF token. */
const act = (v: Visitor, campaignId: string, suffix: string, fields: Record<string, string>) =>
  v.submit(`/console/campaigns/${campaignId}`, `/console/campaigns/${campaignId}/${suffix}`, fields);

const campaignCount = async (v: Visitor) =>
  ((await v.get('/console/campaigns')).text.match(/href="\/console\/campaigns\/cmp_/g) ?? []).length;

describe('console campaign pages', () => {
  it('creates a campaign whose chosen agent is its first coordinator, and refuses bad forms whole', async () => {
    const { visitor, agents } = await ownerWith(2);
    const [first, second] = agents as [Member, Member];
    const campaignId = await createCampaign(visitor, first);

    const status = await ok(first, 'campaign_status', { campaign_id: campaignId }, false);
    expect(status).toMatchObject({
      campaign_id: campaignId,
      title: 'Moorland survey',
      your_role: 'COORDINATOR',
      created_by: first.agentId,
      budget: { amount: 250, unit: 'USD' },
      scopes: ['rspb.org.uk', 'bto.org'],
      allow_agent_publish: true,
      visibility: 'SHARED',
      participation: 'OPEN',
    });
    // It had no default campaign, so this one became it.
    expect((await ok(first, 'campaign_status', {}, false)).campaign_id).toBe(campaignId);

    // An agent at work elsewhere keeps its default when its owner makes it coordinator of another.
    const other = await createCampaign(visitor, first, { title: 'Second survey' });
    expect((await ok(first, 'campaign_status', {}, false)).campaign_id).toBe(campaignId);
    expect((await ok(first, 'campaign_status', { campaign_id: other }, false)).your_role).toBe('COORDINATOR');

    const page = await visitor.get(`/console/campaigns/${campaignId}?done=created`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Campaign created.');
    expect(page.text).toContain('CAMPAIGN_CREATED');
    expect(page.text).toContain('<li>rspb.org.uk</li>');
    expect((await visitor.get('/console/campaigns')).text).toContain('Moorland survey');
    expect(await campaignCount(visitor)).toBe(2);

    const blank = await visitor.submit('/console/campaigns/new', '/console/campaigns/new', {
      ...settings,
      title: '  ',
      coordinator_id: second.agentId,
    });
    expect(blank.status).toBe(422);
    expect(errorOf(blank.text)).toContain('Enter a title.');
    // The form comes back filled in.
    expect(blank.text).toContain('Find and verify facts about moorland birds.');

    const stranger = await ownerWith(1);
    const foreign = await visitor.submit('/console/campaigns/new', '/console/campaigns/new', {
      ...settings,
      coordinator_id: stranger.agents[0]?.agentId,
    });
    expect(foreign.status).toBe(422);
    expect(errorOf(foreign.text)).toContain('of yours');
    const many = await visitor.submit('/console/campaigns/new', '/console/campaigns/new', {
      ...settings,
      scopes: Array.from({ length: 51 }, (_, i) => `scope ${i}`).join('\n'),
      coordinator_id: second.agentId,
    });
    expect(many.status).toBe(422);
    expect(errorOf(many.text)).toContain('At most 50 scopes');
    expect(await campaignCount(visitor)).toBe(2);
    expect((await ok(second, 'campaign_list', {}, false)).campaigns).toEqual([]);
  });

  it("invites the owner's own agents directly and others' after their owner accepts; changes roles", async () => {
    const { visitor, agents } = await ownerWith(2);
    const [coordinator, sibling] = agents as [Member, Member];
    const campaignId = await createCampaign(visitor, coordinator);

    const invited = await act(visitor, campaignId, 'invite', {
      own_agent: sibling.agentId,
      role: 'PARTICIPANT',
    });
    expect(invited.status).toBe(303);
    expect(invited.location).toBe(`/console/campaigns/${campaignId}?done=invited`);
    expect((await visitor.get(`/console/campaigns/${campaignId}`)).text).toContain('INVITED');
    expect(await ok(sibling, 'campaign_join', { campaign_id: campaignId })).toMatchObject({
      membership: 'ACTIVE',
      role: 'PARTICIPANT',
    });

    // Another owner's agent, by typing its id: its owner accepts on their campaigns page.
    const other = await ownerWith(1);
    const stranger = other.agents[0] as Member;
    const pending = await act(visitor, campaignId, 'invite', {
      agent_id: stranger.agentId,
      role: 'PARTICIPANT',
    });
    expect(pending.location).toBe(`/console/campaigns/${campaignId}?done=invited_pending`);
    const list = await other.visitor.get('/console/campaigns');
    expect(list.text).toContain('Invitations waiting for you');
    expect(list.text).toContain('Moorland survey');
    const accepted = await other.visitor.post(
      `/console/campaigns/${campaignId}/invitations/${stranger.agentId}`,
      {
        csrf: csrfOf(list.text),
        decision: 'accept',
      },
    );
    expect(accepted.status).toBe(303);
    expect(accepted.location).toBe('/console/campaigns?done=accepted');
    expect((await other.visitor.get('/console/campaigns')).text).not.toContain('Invitations waiting for you');
    expect((await ok(stranger, 'campaign_join', { campaign_id: campaignId })).membership).toBe('ACTIVE');

    // A role change is an invitation with the other role.
    const promoted = await act(visitor, campaignId, 'invite', {
      agent_id: sibling.agentId,
      role: 'COORDINATOR',
    });
    expect(promoted.location).toBe(`/console/campaigns/${campaignId}?done=role_changed`);
    expect((await ok(sibling, 'campaign_status', { campaign_id: campaignId }, false)).your_role).toBe(
      'COORDINATOR',
    );

    const both = await act(visitor, campaignId, 'invite', {
      own_agent: sibling.agentId,
      agent_id: stranger.agentId,
      role: 'PARTICIPANT',
    });
    expect(both.status).toBe(422);
    expect(errorOf(both.text)).toContain('one of the two');
    const unknown = await act(visitor, campaignId, 'invite', {
      agent_id: 'agt_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      role: 'PARTICIPANT',
    });
    expect(unknown.status).toBe(422);
    expect(errorOf(unknown.text)).toContain('No active agent');

    const ledger = (await visitor.get(`/console/campaigns/${campaignId}`)).text;
    for (const kind of [
      'MEMBER_INVITED',
      'INVITATION_ACCEPTED_BY_OWNER',
      'MEMBER_JOINED',
      'MEMBER_ROLE_CHANGED',
    ]) {
      expect(ledger).toContain(kind);
    }
  });

  it('posts OWNER_COMMENT messages from the form and the JSON API that members read, escaped on the page', async () => {
    const { visitor, agents } = await ownerWith(2);
    const [coordinator, member] = agents as [Member, Member];
    const campaignId = await createCampaign(visitor, coordinator);
    await act(visitor, campaignId, 'invite', { own_agent: member.agentId, role: 'PARTICIPANT' });
    await ok(member, 'campaign_join', { campaign_id: campaignId });

    const posted = await act(visitor, campaignId, 'messages', {
      type: 'NOTE',
      content: 'Start with <b>the RSPB</b> pages.\r\nThen the BTO.',
    });
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/console/campaigns/${campaignId}?done=posted`);

    const api = await visitor.api('POST', `/v1/campaigns/${campaignId}/messages`, {
      type: 'QUESTION',
      content: 'Which sources did you read?',
      addressed_to: member.agentId,
    });
    expect(api.status).toBe(200);
    expect(api.body).toMatchObject({
      type: 'QUESTION',
      label: 'OWNER_COMMENT',
      content: 'Which sources did you read?',
      addressed_to: member.agentId,
    });
    expect(api.body.message_id).toMatch(/^msg_/);

    const read = await ok(member, 'context_read', { campaign_id: campaignId }, false);
    expect(read.messages.map((m: Record<string, unknown>) => [m.type, m.label, m.content])).toEqual([
      ['QUESTION', 'OWNER_COMMENT', 'Which sources did you read?'],
      ['NOTE', 'OWNER_COMMENT', 'Start with <b>the RSPB</b> pages.\nThen the BTO.'],
    ]);
    // The direct question is not for the coordinator.
    const coordinatorRead = await ok(coordinator, 'context_read', { campaign_id: campaignId }, false);
    expect(coordinatorRead.messages).toHaveLength(1);

    const page = (await visitor.get(`/console/campaigns/${campaignId}`)).text;
    expect(page).toContain('Start with &lt;b&gt;the RSPB&lt;/b&gt; pages.<br>Then the BTO.');
    expect(page).not.toContain('<b>the RSPB</b>');
    expect(page).toContain('OWNER_COMMENT');
    expect(page).toContain('MESSAGE_POSTED');
    // Newest first.
    expect(page.indexOf('Which sources did you read?')).toBeLessThan(page.indexOf('Start with'));

    const token = `cd_acc_${'a'.repeat(52)}`;
    const secret = await visitor.api('POST', `/v1/campaigns/${campaignId}/messages`, {
      type: 'NOTE',
      content: `use ${token}`,
    });
    expect(secret.status).toBe(400);
    expect(secret.body.error.code).toBe('CREDENTIAL_IN_INPUT');
    const secretForm = await act(visitor, campaignId, 'messages', { type: 'NOTE', content: `use ${token}` });
    expect(secretForm.status).toBe(400);
    expect(secretForm.text).not.toContain(token);

    const invalid = await visitor.api('POST', `/v1/campaigns/${campaignId}/messages`, {
      type: 'REFUSAL',
      content: '',
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.code).toBe('VALIDATION_FAILED');
    const fields = new Set(invalid.body.detail.map((d: { loc: string[] }) => d.loc.join('.')));
    expect([...fields].sort()).toEqual(['body.content', 'body.type']);
    const long = await act(visitor, campaignId, 'messages', { type: 'NOTE', content: 'x'.repeat(8_001) });
    expect(long.status).toBe(422);
    expect(errorOf(long.text)).toContain('at most 8000 characters');
    expect((await ok(member, 'context_read', { campaign_id: campaignId }, false)).messages).toHaveLength(2);

    const openapi = await (await fetch(`${server.url}/openapi.json`)).json();
    expect(
      Object.keys(openapi.paths['/v1/campaigns/{campaign_id}/messages'].post.requestBody.content),
    ).toEqual(['application/json']);

    const settingsApi = await visitor.api('GET', `/v1/campaigns/${campaignId}`);
    expect(settingsApi.status).toBe(200);
    expect(settingsApi.body).toMatchObject({ campaign_id: campaignId, title: 'Moorland survey' });
    expect(settingsApi.body.members).toEqual([
      expect.objectContaining({ agent_id: coordinator.agentId, role: 'COORDINATOR', membership: 'ACTIVE' }),
      expect.objectContaining({ agent_id: member.agentId, role: 'PARTICIPANT', membership: 'ACTIVE' }),
    ]);
  });

  it('publishes tasks from the console, reporting missing condition terms as INCOMPLETE', async () => {
    const { visitor, agents } = await ownerWith(1);
    const coordinator = agents[0] as Member;
    const campaignId = await createCampaign(visitor, coordinator);
    const terms = Object.fromEntries(Object.entries(conditions(45)).map(([k, v]) => [k, String(v)]));
    const task = {
      title: 'Find a nesting date',
      objective: 'Find when curlews nest.',
      acceptance: 'A quotation that matches a recorded source.',
    };

    const incomplete = await act(visitor, campaignId, 'tasks', {
      ...task,
      ...terms,
      reviewer: '',
      time_budget_minutes: '',
    });
    expect(incomplete.status).toBe(422);
    expect(errorOf(incomplete.text)).toBe(
      'The task conditions are missing required terms: time_budget_minutes, reviewer.',
    );
    expect(incomplete.text).toContain('Find when curlews nest.');

    const published = await act(visitor, campaignId, 'tasks', { ...task, ...terms });
    expect(published.status).toBe(303);
    const list = await ok(coordinator, 'task_list', { campaign_id: campaignId }, false);
    expect(list.tasks).toEqual([
      expect.objectContaining({
        title: 'Find a nesting date',
        status: 'OPEN',
        version: 1,
        time_budget_minutes: 45,
      }),
    ]);
    const taskId = list.tasks[0].task_id as string;
    const page = (await visitor.get(`/console/campaigns/${campaignId}`)).text;
    expect(page).toContain(taskId);
    expect(page).toContain('TASK_PUBLISHED');
  });

  it('shows another owner nothing: 404 on the page, its forms and the API; posts without a CSRF token do nothing', async () => {
    const { visitor, agents } = await ownerWith(1);
    const campaignId = await createCampaign(visitor, agents[0] as Member);
    const other = await ownerWith(1);

    const page = await other.visitor.get(`/console/campaigns/${campaignId}`);
    expect(page.status).toBe(404);
    expect(page.text).not.toContain('Moorland survey');
    const own = await other.visitor.get('/console/campaigns/new');
    const forged = await other.visitor.post(`/console/campaigns/${campaignId}/messages`, {
      csrf: csrfOf(own.text),
      type: 'NOTE',
      content: 'Not yours.',
    });
    expect(forged.status).toBe(404);
    expect(forged.text).not.toContain('Moorland survey');
    expect((await other.visitor.api('GET', `/v1/campaigns/${campaignId}`)).status).toBe(404);
    const api = await other.visitor.api('POST', `/v1/campaigns/${campaignId}/messages`, {
      type: 'NOTE',
      content: 'Not yours.',
    });
    expect(api.status).toBe(404);
    expect(api.body.error.code).toBe('NOT_FOUND');
    expect((await other.visitor.get('/console/campaigns/cmp_nonsense!')).status).toBe(404);

    const before = await campaignCount(visitor);
    const noToken: Page = await visitor.post('/console/campaigns/new', {
      ...settings,
      coordinator_id: agents[0]?.agentId,
    });
    expect(noToken.status).toBe(403);
    const noTokenComment = await visitor.post(`/console/campaigns/${campaignId}/messages`, {
      type: 'NOTE',
      content: 'Forged.',
    });
    expect(noTokenComment.status).toBe(403);
    expect(await campaignCount(visitor)).toBe(before);
    expect((await visitor.get(`/console/campaigns/${campaignId}`)).text).not.toContain('Forged.');

    // Signed out: the page sends the browser to sign in and back.
    const anonymous = await new Visitor(server.url).get(`/console/campaigns/${campaignId}`);
    expect(anonymous.status).toBe(303);
    expect(anonymous.location).toBe(
      `/console/signin?next=${encodeURIComponent(`/console/campaigns/${campaignId}`)}`,
    );
  });
});
