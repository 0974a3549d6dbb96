import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, conditions, type Member, newMember, publishTask } from '../support/campaigns.ts';
import { csrfOf, errorOf, type Page, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 19 item 5 (console): an owner publishes a public board from the console. The campaign
 * page links to the publish form, which offers the campaign's tasks (those that may not be
 * listed shown disabled with why); refusals re-render the form with what to do and what was
 * typed; a board's page shows the task behind each ref and edits it keeping refs; Withdraw takes
 * it off the public; another owner's board is the not-found page; a form without its CSRF token
 * changes nothing.
 */

const PASSWORD = 'correct horse battery staple';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

const openTerms = { conditions: { ...conditions(), participation: 'OPEN', publish_contract: true } };

/** A unique slug per test (the database may be shared between files). */
const slugOf = (stem: string) => `${stem}-${Math.random().toString(36).slice(2, 10)}`;

interface Owner {
  visitor: Visitor;
  agent: Member;
  campaignId: string;
}

/** A signed-in owner with an agent and an active campaign of theirs. */
async function owner(): Promise<Owner> {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, PASSWORD);
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email)).status).toBe(303);
  const agent = await newMember(server, email);
  const campaignId = await campaignWith(agent, []);
  return { visitor, agent, campaignId };
}

const listable = (o: Owner, title: string) => publishTask(o.agent, o.campaignId, { ...openTerms, title });

/**
 * Posts a form whose fields may repeat (one `task_ids` per ticked box, in order), as a browser
 * does, with the visitor's session.
 */
async function postForm(visitor: Visitor, path: string, fields: Array<[string, string]>): Promise<Page> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-for': visitor.address,
      cookie: [...visitor.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    },
    body: new URLSearchParams(fields).toString(),
  });
  return {
    status: res.status,
    headers: res.headers,
    text: await res.text(),
    location: res.headers.get('location'),
  };
}

/** The publish form's fields with the page's CSRF token. */
async function publishFields(
  o: Owner,
  fields: { slug?: string; title?: string; purpose?: string; tasks: string[] },
): Promise<Array<[string, string]>> {
  const form = await o.visitor.get(`/console/campaigns/${o.campaignId}/boards/new`);
  expect(form.status).toBe(200);
  const out: Array<[string, string]> = [['csrf', csrfOf(form.text)]];
  for (const name of ['slug', 'title', 'purpose'] as const) {
    const value = fields[name];
    if (value !== undefined) out.push([name, value]);
  }
  for (const id of fields.tasks) out.push(['task_ids', id]);
  return out;
}

async function publish(
  o: Owner,
  fields: { slug: string; title?: string; purpose?: string; tasks: string[] },
) {
  const body = await publishFields(o, { title: `Board ${fields.slug}`, purpose: 'WORK', ...fields });
  return postForm(o.visitor, `/console/campaigns/${o.campaignId}/boards/new`, body);
}

const publicBoard = async (slug: string) => {
  const res = await fetch(`${server.url}/v1/public/boards/${slug}`);
  // biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary JSON answers
  return { status: res.status, body: (await res.json()) as any };
};

/** The box offered for a task on a form: `<div class="task-choice" id="choice-…">…</div>`. */
function choice(page: Page, taskId: string): string {
  const m = new RegExp(`<div class="task-choice" id="choice-${taskId}">([\\s\\S]*?)</div>`).exec(page.text);
  return m?.[1] ?? '';
}

/** The value attribute of a text input, as rendered. */
const typedValue = (page: Page, id: string) =>
  new RegExp(`id="${id}"[^>]*value="([^"]*)"`).exec(page.text)?.[1] ?? null;

describe('publishing from the console', () => {
  it('publishes the ticked tasks in order from the campaign page’s link; the public reads the board', async () => {
    const o = await owner();
    const curlews = await listable(o, 'Count the <b>curlews</b>');
    const cairns = await listable(o, 'Map the cairns');
    const closed = await publishTask(o.agent, o.campaignId, { title: 'Members only' });
    const newPath = `/console/campaigns/${o.campaignId}/boards/new`;

    const campaign = await o.visitor.get(`/console/campaigns/${o.campaignId}`);
    expect(campaign.text).toContain(`href="${newPath}"`);
    // The boards page offers the active campaign, and its chooser leads to the same form.
    const boards = await o.visitor.get('/console/boards');
    expect(boards.text).toContain('<a href="/console/boards" aria-current="page">Boards</a>');
    expect(boards.text).toContain(`<option value="${o.campaignId}">`);
    const chosen = await o.visitor.get(`/console/boards?publish_from=${o.campaignId}`);
    expect([chosen.status, chosen.location]).toEqual([303, newPath]);

    const form = await o.visitor.get(newPath);
    expect(form.status).toBe(200);
    expect(choice(form, curlews)).toContain(`name="task_ids" value="${curlews}"`);
    // A task that may not be listed is a disabled box, with why and what to change.
    expect(choice(form, closed)).toContain('disabled');
    expect(choice(form, closed)).not.toContain('name="task_ids"');
    expect(choice(form, closed)).toContain('its conditions do not say participation: OPEN');
    expect(choice(form, closed)).toContain('task_edit');
    for (const meaning of [
      'Real work the owner wants done.',
      'The owner did not say what the work is for.',
    ]) {
      expect(form.text).toContain(meaning);
    }
    // Titles are text, never markup; the page carries no script and the console's policy.
    expect(form.text).toContain('Count the &lt;b&gt;curlews&lt;/b&gt;');
    expect(form.text).not.toContain('<b>curlews');
    expect(form.text).not.toMatch(/<script/i);
    expect(form.headers.get('content-security-policy')).toContain("default-src 'self'");

    const slug = slugOf('moor');
    const made = await publish(o, { slug, title: 'Moorland <i>birds</i>', tasks: [cairns, curlews] });
    expect(made.status).toBe(303);
    expect(made.location).toBe(`/console/boards/${slug}?done=published`);

    const shown = await publicBoard(slug);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      slug,
      title: 'Moorland <i>birds</i>',
      purpose: 'WORK',
      status: 'OPEN',
    });
    expect(shown.body.tasks.map((t: { title: string }) => t.title)).toEqual([
      'Map the cairns',
      'Count the <b>curlews</b>',
    ]);

    const page = await o.visitor.get(made.location ?? '');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Published.');
    expect(page.text).toContain('Moorland &lt;i&gt;birds&lt;/i&gt;');
    // The owner sees the task behind each ref.
    for (const t of shown.body.tasks as Array<{ task_ref: string }>) {
      expect(page.text).toContain(`id="ref-${t.task_ref}"`);
    }
    expect(page.text).toContain(`<code>${curlews}</code>`);
    expect(page.text).toContain(`href="${shown.body.url}"`);

    const listed = await o.visitor.get('/console/boards');
    expect(listed.text).toContain(`id="board-${slug}"`);
    expect(listed.text).toContain(`<a href="${shown.body.url}">`);
    expect(listed.text).toContain(`action="/console/boards/${slug}/withdraw"`);
  });

  it('refuses a task that may not be listed, re-rendering the form with why, what to do and what was typed', async () => {
    const o = await owner();
    const open = await listable(o, 'Count the curlews');
    const unpublished = await publishTask(o.agent, o.campaignId, {
      conditions: { ...conditions(), participation: 'OPEN', publish_contract: false },
      title: 'Private contract',
    });
    const slug = slugOf('bad');
    const refused = await publish(o, {
      slug,
      title: 'Kept title',
      purpose: 'DEMO',
      tasks: [open, unpublished],
    });
    expect(refused.status).toBe(422);
    const error = errorOf(refused.text) ?? '';
    expect(error).toContain(`“Private contract” (${unpublished})`);
    expect(error).toContain('publish_contract: true');
    expect(error).toContain('Untick it');
    expect(typedValue(refused, 'board_slug')).toBe(slug);
    expect(typedValue(refused, 'board_title')).toBe('Kept title');
    expect(refused.text).toMatch(/value="DEMO" required checked/);
    expect(choice(refused, open)).toContain('checked');
    expect(choice(refused, unpublished)).toContain('disabled');
    expect((await publicBoard(slug)).status).toBe(404);

    // A form problem is said the same way: nothing ticked.
    const none = await publish(o, { slug, tasks: [] });
    expect(none.status).toBe(422);
    expect(errorOf(none.text)).toContain('Tick at least one task');
    expect(typedValue(none, 'board_slug')).toBe(slug);
  });

  it('refuses a slug already taken, keeping what was typed', async () => {
    const o = await owner();
    const task = await listable(o, 'Count the curlews');
    const slug = slugOf('taken');
    expect((await publish(o, { slug, tasks: [task] })).status).toBe(303);
    // Another owner's board holds the slug as well as one's own.
    const other = await owner();
    const theirs = await listable(other, 'Map the cairns');
    const again = await publish(other, { slug, title: 'Second try', tasks: [theirs] });
    expect(again.status).toBe(409);
    expect(errorOf(again.text)).toContain(`The board name ${slug} is taken`);
    expect(errorOf(again.text)).toContain('Choose another slug');
    expect(typedValue(again, 'board_title')).toBe('Second try');
    expect(choice(again, theirs)).toContain('checked');
    expect((await publicBoard(slug)).body.title).toBe(`Board ${slug}`);
  });
});

describe('a board’s page', () => {
  it('edits title, purpose and tasks, a kept task keeping its ref', async () => {
    const o = await owner();
    const a = await listable(o, 'Task A');
    const b = await listable(o, 'Task B');
    const slug = slugOf('edit');
    await publish(o, { slug, tasks: [a] });
    const refA = (await publicBoard(slug)).body.tasks[0].task_ref as string;

    const path = `/console/boards/${slug}`;
    const page = await o.visitor.get(path);
    expect(choice(page, a)).toContain('checked');
    expect(choice(page, b)).not.toContain('checked');
    const changed = await postForm(o.visitor, path, [
      ['csrf', csrfOf(page.text)],
      ['title', 'Renamed board'],
      ['purpose', 'DEMO'],
      ['task_ids', b],
      ['task_ids', a],
    ]);
    expect([changed.status, changed.location]).toEqual([303, `${path}?done=changed`]);
    const shown = (await publicBoard(slug)).body;
    expect(shown).toMatchObject({ title: 'Renamed board', purpose: 'DEMO', tasks_listed: 2 });
    expect(shown.tasks.map((t: { title: string }) => t.title)).toEqual(['Task B', 'Task A']);
    expect(shown.tasks[1].task_ref).toBe(refA);

    // The edit form shows the ticked tasks in the board's order; a title-only change keeps every ref.
    const again = await o.visitor.get(path);
    expect(again.text.indexOf(`id="choice-${b}"`)).toBeLessThan(again.text.indexOf(`id="choice-${a}"`));
    const refs = shown.tasks.map((t: { task_ref: string }) => t.task_ref);
    const retitled = await postForm(o.visitor, path, [
      ['csrf', csrfOf(again.text)],
      ['title', 'Renamed again'],
      ['purpose', 'DEMO'],
      ['task_ids', b],
      ['task_ids', a],
    ]);
    expect(retitled.status).toBe(303);
    const after = (await publicBoard(slug)).body;
    expect(after.title).toBe('Renamed again');
    expect(after.tasks.map((t: { task_ref: string }) => t.task_ref)).toEqual(refs);

    // A refusal re-renders the edit form with what was typed.
    const empty = await postForm(o.visitor, path, [
      ['csrf', csrfOf(again.text)],
      ['title', 'Typed title'],
      ['purpose', 'TEST'],
    ]);
    expect(empty.status).toBe(422);
    expect(errorOf(empty.text)).toContain('Tick at least one task');
    expect(typedValue(empty, 'board_title')).toBe('Typed title');
    expect((await publicBoard(slug)).body.title).toBe('Renamed again');
  });

  it('withdraws the board from the public at once, after the box is ticked', async () => {
    const o = await owner();
    const task = await listable(o, 'Count the curlews');
    const slug = slugOf('gone');
    await publish(o, { slug, tasks: [task] });
    const path = `/console/boards/${slug}`;
    const page = await o.visitor.get(path);
    expect(page.text).toContain('Yes, withdraw');

    const unticked = await postForm(o.visitor, `${path}/withdraw`, [['csrf', csrfOf(page.text)]]);
    expect(unticked.status).toBe(422);
    expect(errorOf(unticked.text)).toContain('Tick the box');
    expect((await publicBoard(slug)).status).toBe(200);

    const withdraw = [
      ['csrf', csrfOf(page.text)],
      ['confirm', 'yes'],
    ] as Array<[string, string]>;
    const gone = await postForm(o.visitor, `${path}/withdraw`, withdraw);
    expect([gone.status, gone.location]).toEqual([303, '/console/boards?done=withdrawn']);
    expect((await publicBoard(slug)).status).toBe(404);

    const list = await o.visitor.get('/console/boards?done=withdrawn');
    expect(list.text).toContain('Withdrawn.');
    expect(list.text).toMatch(new RegExp(`id="board-${slug}"[\\s\\S]*?WITHDRAWN`));
    const after = await o.visitor.get(path);
    expect(after.status).toBe(200);
    expect(after.text).not.toContain('id="edit"');
    expect(after.text).not.toContain(`action="${path}/withdraw"`);
    // Pressed again from an old page: said, nothing else.
    const twice = await postForm(o.visitor, `${path}/withdraw`, withdraw);
    expect(twice.location).toBe('/console/boards?done=already_withdrawn');
  });

  it('is the not-found page for another owner, whose forms change nothing', async () => {
    const o = await owner();
    const task = await listable(o, 'Count the curlews');
    const slug = slugOf('mine');
    await publish(o, { slug, tasks: [task] });
    const path = `/console/boards/${slug}`;

    const other = await owner();
    const seen = await other.visitor.get(path);
    expect(seen.status).toBe(404);
    expect(seen.text).toContain('Not found');
    expect(seen.text).not.toContain(task);
    const token = csrfOf((await other.visitor.get('/console/boards')).text);
    const edit = await postForm(other.visitor, path, [
      ['csrf', token],
      ['title', 'Mine now'],
      ['purpose', 'WORK'],
      ['task_ids', task],
    ]);
    expect(edit.status).toBe(404);
    const withdraw = await postForm(other.visitor, `${path}/withdraw`, [
      ['csrf', token],
      ['confirm', 'yes'],
    ]);
    expect(withdraw.status).toBe(404);
    // Nor can they publish from the first owner's campaign.
    const newPath = `/console/campaigns/${o.campaignId}/boards/new`;
    expect((await other.visitor.get(newPath)).status).toBe(404);
    const into = await postForm(other.visitor, newPath, [
      ['csrf', token],
      ['slug', slugOf('into')],
      ['title', 'Into theirs'],
      ['purpose', 'WORK'],
      ['task_ids', task],
    ]);
    expect(into.status).toBe(404);

    const shown = await publicBoard(slug);
    expect(shown.status).toBe(200);
    expect(shown.body.title).toBe(`Board ${slug}`);
    expect((await other.visitor.get('/console/boards')).text).not.toContain(slug);
  });

  it('refuses forms without the CSRF token, changing nothing', async () => {
    const o = await owner();
    const task = await listable(o, 'Count the curlews');
    const slug = slugOf('csrf');
    await publish(o, { slug, tasks: [task] });
    const path = `/console/boards/${slug}`;

    const fresh = slugOf('forged');
    const forged = await postForm(o.visitor, `/console/campaigns/${o.campaignId}/boards/new`, [
      ['slug', fresh],
      ['title', 'Forged'],
      ['purpose', 'WORK'],
      ['task_ids', task],
    ]);
    expect(forged.status).toBe(403);
    expect(forged.text).toContain('security token');
    expect((await publicBoard(fresh)).status).toBe(404);

    const edit = await postForm(o.visitor, path, [
      ['csrf', 'not-the-token'],
      ['title', 'Forged'],
      ['purpose', 'WORK'],
      ['task_ids', task],
    ]);
    expect(edit.status).toBe(403);
    const withdraw = await postForm(o.visitor, `${path}/withdraw`, [['confirm', 'yes']]);
    expect(withdraw.status).toBe(403);
    expect((await publicBoard(slug)).body.title).toBe(`Board ${slug}`);

    // Signed out, the pages send the browser to sign in.
    const stranger = new Visitor(server.url);
    const away = await stranger.get(path);
    expect(away.status).toBe(303);
    expect(away.location).toContain('/console/signin');
  });
});
