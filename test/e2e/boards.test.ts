import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, conditions, type Member, newMember, ok, publishTask } from '../support/campaigns.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { credit } from '../support/rewards.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 19 item 5: public task boards. An owner lists open-pickup tasks under a slug; the public
 * sees their terms, reward and funding, never an id; listings filter in SQL and page both ways
 * with signed cursors bound to their filters.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const openTerms = (extra: Record<string, unknown> = {}) => ({
  conditions: { ...conditions(), participation: 'OPEN', publish_contract: true, ...extra },
});

const get = async (path: string) => {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, body: await res.json() };
};

/** A unique word per test, so listings filtered by it see only that test's boards (the database is shared). */
const word = () => `w${Math.random().toString(36).slice(2, 10)}`;

interface Owner {
  coordinator: Member;
  campaignId: string;
  token: string;
}

async function owner(): Promise<Owner> {
  const coordinator = await newMember(server);
  const campaignId = await campaignWith(coordinator, []);
  return { coordinator, campaignId, token: await ownerTokenOf(server, coordinator) };
}

async function board(o: Owner, slug: string, taskIds: string[], extra: Record<string, unknown> = {}) {
  return ownerApi(server, o.token, 'POST', '/v1/boards', {
    slug,
    title: `Board ${slug}`,
    purpose: 'WORK',
    campaign_id: o.campaignId,
    task_ids: taskIds,
    ...extra,
  });
}

describe('publishing a board', () => {
  it('lists open-pickup tasks with their terms, reward and funding, and no ids', async () => {
    const o = await owner();
    await credit(server, o.coordinator, 'POINTS', 500);
    const funded = await publishTask(o.coordinator, o.campaignId, {
      ...openTerms({ reviewer: o.coordinator.agentId }),
      title: 'Count the curlews',
      reward_points: 100,
    });
    const unpaid = await publishTask(o.coordinator, o.campaignId, {
      ...openTerms(),
      title: 'Map the cairns',
    });
    const slug = `moor-${word()}`;
    const made = await board(o, slug, [funded, unpaid]);
    expect(made.status).toBe(201);
    // The owner sees which task each ref stands for.
    expect(made.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([funded, unpaid]);

    const shown = await get(`/v1/public/boards/${slug}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      slug,
      title: `Board ${slug}`,
      purpose: 'WORK',
      status: 'OPEN',
      tasks_listed: 2,
      tasks_available: 2,
      tasks_funded: 1,
    });
    const [curlews, cairns] = shown.body.tasks;
    expect(curlews).toMatchObject({
      task_ref: expect.stringMatching(/^tref_[a-z2-7]{24}$/),
      title: 'Count the curlews',
      objective: 'Find one verifiable fact.',
      acceptance: 'A quotation that matches a recorded source.',
      status: 'OPEN',
      available: true,
      reward: { currency: 'POINTS', amount: 100, status: 'ESCROWED', funded: true },
      conditions: expect.objectContaining({
        participation: 'OPEN',
        publish_contract: true,
        time_budget_minutes: 60,
        // A reviewer named by agent id is shown in words.
        reviewer: 'a member of the campaign',
      }),
    });
    expect(cairns).toMatchObject({ title: 'Map the cairns', reward: null, available: true });
    const text = JSON.stringify(shown.body);
    for (const secret of [funded, unpaid, o.campaignId, o.coordinator.agentId, 'owner_id', 'own_']) {
      expect(text).not.toContain(secret);
    }
  });

  it('refuses tasks that do not publish their contract for open pickup, naming each and why', async () => {
    const o = await owner();
    const open = await publishTask(o.coordinator, o.campaignId, openTerms());
    const campaignOnly = await publishTask(o.coordinator, o.campaignId);
    const unpublished = await publishTask(
      o.coordinator,
      o.campaignId,
      openTerms({ publish_contract: false }),
    );
    const refused = await board(o, `bad-${word()}`, [open, campaignOnly, unpublished]);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'TASK_NOT_LISTABLE' });
    expect(refused.body.error.details.tasks).toHaveLength(2);
    expect(refused.body.error.details.tasks).toEqual(
      expect.arrayContaining([
        { task_id: campaignOnly, reason: expect.stringContaining('participation: OPEN') },
        { task_id: unpublished, reason: expect.stringContaining('publish_contract: true') },
      ]),
    );

    // Nothing half made: the slug is still free.
    const slug = `ok-${word()}`;
    expect((await board(o, slug, [open])).status).toBe(201);
    expect((await board(o, slug, [open])).body.error).toMatchObject({ code: 'CONFLICT' });
  });

  it("keeps other owners out: their campaign's tasks, their boards", async () => {
    const mine = await owner();
    const theirs = await owner();
    const task = await publishTask(theirs.coordinator, theirs.campaignId, openTerms());
    const foreignCampaign = await ownerApi(server, mine.token, 'POST', '/v1/boards', {
      slug: `x-${word()}`,
      title: 'Not mine',
      purpose: 'TEST',
      campaign_id: theirs.campaignId,
      task_ids: [task],
    });
    expect(foreignCampaign.status).toBe(404);
    // A task of another campaign named under my campaign is not found either.
    const foreignTask = await board(mine, `y-${word()}`, [task]);
    expect(foreignTask.body.error).toMatchObject({ code: 'NOT_FOUND', details: { task_ids: [task] } });

    const slug = `theirs-${word()}`;
    await board(theirs, slug, [task]);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { title: 'Mine now' }],
      ['DELETE', undefined],
    ] as const) {
      expect((await ownerApi(server, mine.token, method, `/v1/boards/${slug}`, body)).status).toBe(404);
    }
    expect((await get(`/v1/public/boards/${slug}`)).body.title).toBe(`Board ${slug}`);
  });

  it('changes the list keeping refs, and a withdrawn board is gone at once', async () => {
    const o = await owner();
    const a = await publishTask(o.coordinator, o.campaignId, openTerms());
    const b = await publishTask(o.coordinator, o.campaignId, openTerms());
    const slug = `change-${word()}`;
    const made = await board(o, slug, [a]);
    const refA = made.body.tasks[0].task_ref;
    const changed = await ownerApi(server, o.token, 'PATCH', `/v1/boards/${slug}`, {
      task_ids: [b, a],
      purpose: 'DEMO',
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ purpose: 'DEMO', tasks_listed: 2 });
    expect(changed.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([b, a]);
    expect(changed.body.tasks[1].task_ref).toBe(refA);

    // A change of title alone is on the ledger too, with the list as it stands.
    await ownerApi(server, o.token, 'PATCH', `/v1/boards/${slug}`, { title: 'Renamed' });
    const events = await ok(
      o.coordinator,
      'events_watch',
      { campaign_id: o.campaignId, wait_seconds: 1 },
      false,
    );
    const changes = events.events.filter((e: { kind: string }) => e.kind === 'BOARD_CHANGED');
    expect(changes).toHaveLength(2);
    expect(JSON.stringify(changes[1])).toContain('Renamed');
    expect(JSON.stringify(changes[1])).toContain(`"task_ids":["${b}","${a}"]`);
    expect(events.events.map((e: { kind: string }) => e.kind)).toEqual(
      expect.arrayContaining(['BOARD_PUBLISHED', 'BOARD_CHANGED']),
    );

    const gone = await ownerApi(server, o.token, 'DELETE', `/v1/boards/${slug}`);
    expect(gone.body).toMatchObject({ slug, withdrawn: true });
    expect((await get(`/v1/public/boards/${slug}`)).status).toBe(404);
    // The slug is never reused, and the owner still sees the board, withdrawn.
    expect((await board(o, slug, [a])).body.error).toMatchObject({ code: 'CONFLICT' });
    const mine = await ownerApi(server, o.token, 'GET', '/v1/boards');
    expect(mine.body.boards).toEqual([
      expect.objectContaining({ slug, withdrawn_at: expect.any(String), status: 'CLOSED' }),
    ]);
  });
});

describe('GET /v1/public/boards', () => {
  it('filters by words, purpose, status and funding in SQL, and pages both ways with cursors bound to the filters', async () => {
    const o = await owner();
    await credit(server, o.coordinator, 'POINTS', 1_000);
    const tag = word();
    const titleWord = word();
    const slugs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const task = await publishTask(o.coordinator, o.campaignId, {
        ...openTerms(),
        title: `${tag} task ${i}`,
        ...(i % 2 === 0 ? { reward_points: 50 } : {}),
      });
      const slug = `page-${tag}-${i}`;
      slugs.push(slug);
      // The board's own title does not carry `tag`: only its task's title does.
      const extra = { purpose: i === 4 ? 'TEST' : 'WORK', title: `Moorland ${titleWord} ${i}` };
      expect((await board(o, slug, [task], extra)).status).toBe(201);
    }
    const newestFirst = [...slugs].reverse();
    const list = (query: string) => get(`/v1/public/boards?q=${tag}&${query}`);

    const first = await list('limit=2');
    expect(first.body.boards.map((b: { slug: string }) => b.slug)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.previous_cursor).toBeNull();
    const second = await list(`limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.boards.map((b: { slug: string }) => b.slug)).toEqual(newestFirst.slice(2, 4));
    const third = await list(`limit=2&cursor=${second.body.next_cursor}`);
    expect(third.body.boards.map((b: { slug: string }) => b.slug)).toEqual(newestFirst.slice(4));
    expect(third.body.next_cursor).toBeNull();
    // ...and back again.
    const back = await list(`limit=2&cursor=${third.body.previous_cursor}`);
    expect(back.body.boards.map((b: { slug: string }) => b.slug)).toEqual(newestFirst.slice(2, 4));
    const start = await list(`limit=2&cursor=${back.body.previous_cursor}`);
    expect(start.body.boards.map((b: { slug: string }) => b.slug)).toEqual(newestFirst.slice(0, 2));
    expect(start.body.previous_cursor).toBeNull();

    // A cursor is for its filters only, and cannot be altered.
    const otherFilters = await get(
      `/v1/public/boards?q=${tag}&purpose=WORK&limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(otherFilters.status).toBe(400);
    expect(otherFilters.body.error).toMatchObject({ code: 'CURSOR_INVALID' });
    const [body, mac] = first.body.next_cursor.split('.');
    const forged = Buffer.from(
      JSON.stringify({ at: new Date(0).toISOString(), slug: 'a', dir: 'next' }),
    ).toString('base64url');
    expect((await list(`cursor=${forged}.${mac}`)).body.error).toMatchObject({ code: 'CURSOR_INVALID' });
    expect((await list(`cursor=${body}.${mac}x`)).body.error).toMatchObject({ code: 'CURSOR_INVALID' });

    const slugsOf = async (query: string) =>
      (await list(`limit=50&${query}`)).body.boards.map((b: { slug: string }) => b.slug).sort();
    expect(await slugsOf('purpose=TEST')).toEqual([slugs[4]]);
    expect(await slugsOf('funded=true')).toEqual([slugs[0], slugs[2], slugs[4]].sort());
    expect(await slugsOf('funded=false')).toEqual([slugs[1], slugs[3]].sort());
    // `tag` is only in the listed tasks' titles; a word of the boards' titles finds them too.
    expect(await slugsOf('status=OPEN')).toEqual([...slugs].sort());
    const byTitle = await get(`/v1/public/boards?q=${titleWord}&limit=50`);
    expect(byTitle.body.boards.map((b: { slug: string }) => b.slug).sort()).toEqual([...slugs].sort());
    expect((await get(`/v1/public/boards?q=${word()}`)).body.boards).toEqual([]);

    // A task that is taken makes its board CLOSED.
    const claimer = await newMember(server);
    await ok(claimer, 'campaign_join', { campaign_id: o.campaignId });
    const owned = await ownerApi(server, o.token, 'GET', `/v1/boards/${slugs[1]}`);
    await ok(claimer, 'task_claim', { task_id: owned.body.tasks[0].task_id });
    expect(await slugsOf('status=CLOSED')).toEqual([slugs[1]]);
    expect((await get(`/v1/public/boards/${slugs[1]}`)).body).toMatchObject({
      status: 'CLOSED',
      tasks: [expect.objectContaining({ status: 'CLAIMED', available: false })],
    });
  });

  it('refuses bad filters with the field named', async () => {
    for (const query of ['limit=0', 'limit=51', 'purpose=FUN', 'status=MAYBE', 'funded=yes', 'other=1']) {
      const res = await get(`/v1/public/boards?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body.error.details), query).toContain(query.split('=')[0]);
    }
  });
});
