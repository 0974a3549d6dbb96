import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, type Member, newMember, publishTask } from '../support/campaigns.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 16: GET /v1/research/campaigns/{campaign_id}/task-choices, the campaign's tasks as
 * lightweight choices (id, title, status) for its owner of record, a signed cursor between pages.
 */

let server: TestServer;
let coordinator: Member;
let outsider: Member;
let campaignId: string;
let ownerToken: string;
let otherToken: string;
const published: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  coordinator = await newMember(server);
  outsider = await newMember(server);
  campaignId = await campaignWith(coordinator, []);
  for (const n of [1, 2, 3, 4, 5]) {
    published.push(await publishTask(coordinator, campaignId, { title: `Survey plot ${n}` }));
  }
  const identity = server.app.services.identity;
  ownerToken = (await identity.addOwnerToken(coordinator.ownerEmail, 'choices', 30)).token;
  otherToken = (await identity.addOwnerToken(outsider.ownerEmail, 'choices', 30)).token;
}, 60_000);
afterAll(async () => {
  for (const m of [coordinator, outsider]) await m?.client.close();
  await server?.close();
});

const choices = async (query: string, token = ownerToken, id = campaignId) => {
  const res = await fetch(`${server.url}/v1/research/campaigns/${id}/task-choices${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: await res.json() };
};

describe('task choices', () => {
  it('pages through every task, newest first, with a cursor between pages of 2', async () => {
    const seen: Array<{ task_id: string; title: string; status: string }> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const { status, body } = await choices(q);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.choices.length).toBeLessThanOrEqual(2);
      for (const c of body.choices) expect(Object.keys(c).sort()).toEqual(['status', 'task_id', 'title']);
      seen.push(...body.choices);
      cursor = body.next_cursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen.map((c) => c.task_id)).toEqual([...published].reverse());
    expect(seen[0]).toEqual({ task_id: published[4], title: 'Survey plot 5', status: 'OPEN' });
  });

  it('gives all of them on one page by default (limit 200), with no cursor', async () => {
    const { status, body } = await choices('');
    expect(status).toBe(200);
    expect(body).toMatchObject({ campaign_id: campaignId, next_cursor: null });
    expect(body.choices).toHaveLength(5);
  });

  it("answers another owner's campaign, and an unknown one, as NOT_FOUND", async () => {
    const theirs = await choices('', otherToken);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('NOT_FOUND');
    const none = await choices('', ownerToken, 'cmp_0000000000000000000000000');
    expect(none.status).toBe(404);
  });

  it('refuses a limit outside 1-200 (422), and a cursor of another query or altered', async () => {
    expect((await choices('?limit=0')).status).toBe(422);
    expect((await choices('?limit=201')).status).toBe(422);
    expect((await choices('?limit=two')).status).toBe(422);
    const first = await choices('?limit=2');
    const cursor = first.body.next_cursor as string;
    const other = await campaignWith(coordinator, []);
    const elsewhere = await choices(`?cursor=${encodeURIComponent(cursor)}`, ownerToken, other);
    expect(elsewhere.body.error.code).toBe('CURSOR_INVALID');
    const altered = await choices(`?cursor=${encodeURIComponent(`${cursor.slice(0, -2)}xx`)}`);
    expect(altered.body.error.code).toBe('CURSOR_INVALID');
  });

  it('needs a signed-in owner', async () => {
    const res = await fetch(`${server.url}/v1/research/campaigns/${campaignId}/task-choices`);
    expect(res.status).toBe(401);
  });
});
