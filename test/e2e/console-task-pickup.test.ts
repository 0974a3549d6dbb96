import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conditions, type Member, newMember, ok } from '../support/campaigns.ts';
import { errorOf, type Page, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * The console's task publish form sets who may take a task (conditions.participation) and
 * whether its contract is published (conditions.publish_contract), so an owner can make a task
 * a public board may list (docs/boards.md) without an agent's task_publish.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

async function ownerWithCampaign(): Promise<{
  email: string;
  visitor: Visitor;
  coordinator: Member;
  campaignId: string;
}> {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, 'correct horse battery staple');
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email)).status).toBe(303);
  const coordinator = await newMember(server, email);
  const created = await visitor.submit('/console/campaigns/new', '/console/campaigns/new', {
    title: 'Moorland survey',
    objective: 'Find and verify facts about moorland birds.',
    visibility: 'SHARED',
    participation: 'OPEN',
    coordinator_id: coordinator.agentId,
  });
  expect(created.status, errorOf(created.text) ?? '').toBe(303);
  const campaignId = /^\/console\/campaigns\/(cmp_[0-9A-Z]{26})\?done=created$/.exec(
    created.location ?? '',
  )?.[1] as string;
  expect(campaignId).toBeDefined();
  return { email, visitor, coordinator, campaignId };
}

const terms = Object.fromEntries(Object.entries(conditions(45)).map(([k, v]) => [k, String(v)]));
const task = (title: string) => ({
  title,
  objective: 'Find when curlews nest.',
  acceptance: 'A quotation that matches a recorded source.',
  ...terms,
});

/** Whether the input with this id is rendered checked. */
const checked = (page: Page, id: string) => {
  const input = new RegExp(`<input id="${id}"[^>]*>`).exec(page.text)?.[0];
  expect(input, id).toBeDefined();
  return / checked(?:[ >])/.test(input as string);
};

describe('console task form: open pickup and a published contract', () => {
  it('publishes a task a board can list, keeps the choices on a refusal, and leaves the default members-only', async () => {
    const { email, visitor, coordinator, campaignId } = await ownerWithCampaign();
    const page = `/console/campaigns/${campaignId}`;
    const publish = (fields: Record<string, string>) =>
      visitor.submit(page, `/console/campaigns/${campaignId}/tasks`, fields);

    // The form offers both, members-only and unpublished by default.
    const blank = await visitor.get(page);
    expect(blank.text).toContain('Who may take it');
    expect(blank.text).toContain('Open pickup: anyone through a public board');
    expect(blank.text).toContain('Publish the contract');
    expect(blank.text).toContain('shown publicly on a board');
    expect(checked(blank, 'task_participation_CAMPAIGN')).toBe(true);
    expect(checked(blank, 'task_participation_OPEN')).toBe(false);
    expect(checked(blank, 'task_publish_contract')).toBe(false);

    // A refusal (a missing term) comes back with the choices and the text as typed, escaped.
    const incomplete = await publish({
      ...task('Nesting <script>alert(1)</script> date'),
      reviewer: '',
      participation: 'OPEN',
      publish_contract: 'on',
    });
    expect(incomplete.status).toBe(422);
    expect(errorOf(incomplete.text)).toContain('missing required terms: reviewer');
    expect(checked(incomplete, 'task_participation_OPEN')).toBe(true);
    expect(checked(incomplete, 'task_participation_CAMPAIGN')).toBe(false);
    expect(checked(incomplete, 'task_publish_contract')).toBe(true);
    expect(incomplete.text).toContain('Nesting &lt;script&gt;alert(1)&lt;/script&gt; date');
    expect(incomplete.text).not.toContain('<script>alert(1)</script>');

    // Values outside the choices are refused by the form, never echoed as markup.
    const odd = await publish({ ...task('Odd'), participation: '"><b>EVERYONE</b>' });
    expect(odd.status).toBe(422);
    expect(errorOf(odd.text)).toContain('Choose who may take the task');
    expect(odd.text).not.toContain('<b>EVERYONE</b>');
    expect(checked(odd, 'task_participation_CAMPAIGN')).toBe(true);
    const oddBox = await publish({ ...task('Odd'), publish_contract: 'yes' });
    expect(oddBox.status).toBe(422);
    expect(errorOf(oddBox.text)).toContain('Publish the contract');

    for (const fields of [
      { ...task('Open and published'), participation: 'OPEN', publish_contract: 'on' },
      { ...task('Members only') },
      { ...task('Open, contract kept'), participation: 'OPEN' },
      { ...task('Members only, explicitly'), participation: 'CAMPAIGN' },
    ]) {
      const res = await publish(fields);
      expect(res.status, errorOf(res.text) ?? '').toBe(303);
      expect(res.location).toBe(`${page}?done=published`);
    }
    const list = await ok(coordinator, 'task_list', { campaign_id: campaignId }, false);
    expect(list.tasks).toHaveLength(4);
    const idOf = (title: string) =>
      list.tasks.find((t: { title: string }) => t.title === title)?.task_id as string;
    const [open, members, openOnly, explicit] = [
      idOf('Open and published'),
      idOf('Members only'),
      idOf('Open, contract kept'),
      idOf('Members only, explicitly'),
    ];

    // A member's task_get shows the conditions the form set.
    const get = (taskId: string) => ok(coordinator, 'task_get', { task_id: taskId }, false);
    expect((await get(open)).conditions).toMatchObject({ participation: 'OPEN', publish_contract: true });
    expect((await get(members)).conditions).toMatchObject({
      participation: 'CAMPAIGN',
      publish_contract: false,
    });
    expect((await get(openOnly)).conditions).toMatchObject({
      participation: 'OPEN',
      publish_contract: false,
    });
    expect((await get(explicit)).conditions).toMatchObject({
      participation: 'CAMPAIGN',
      publish_contract: false,
    });

    // The owner lists the open, published one on a board; the others are refused whole.
    const token = await ownerTokenOf(server, { ownerEmail: email });
    const board = (slug: string, taskIds: string[]) =>
      ownerApi(server, token, 'POST', '/v1/boards', {
        slug,
        title: 'Curlew work',
        purpose: 'WORK',
        campaign_id: campaignId,
        task_ids: taskIds,
      });
    const slug = () => `pickup-${Math.random().toString(36).slice(2, 10)}`;
    const refused = await board(slug(), [members, open]);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'TASK_NOT_LISTABLE' });
    expect(refused.body.error.details.tasks).toEqual([
      { task_id: members, reason: expect.stringContaining('participation: OPEN') },
    ]);
    const notPublished = await board(slug(), [openOnly]);
    expect(notPublished.status).toBe(422);
    expect(notPublished.body.error.details.tasks).toEqual([
      { task_id: openOnly, reason: expect.stringContaining('publish_contract: true') },
    ]);
    const listedSlug = slug();
    const listed = await board(listedSlug, [open]);
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    expect(listed.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([open]);
    const shown = await fetch(`${server.url}/v1/public/boards/${listedSlug}`);
    expect(shown.status).toBe(200);
    const publicBoard = (await shown.json()) as { tasks: Array<{ title: string; conditions: unknown }> };
    expect(publicBoard.tasks.map((t) => t.title)).toEqual(['Open and published']);
    expect(publicBoard.tasks[0]?.conditions).toMatchObject({ participation: 'OPEN', publish_contract: true });
  });
});
