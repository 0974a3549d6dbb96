import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { lines, type Signed } from '../../../web/console/views.ts';
import type { BoardService } from '../boards/owner-boards.ts';
import { shown } from './rewards-views.ts';

/**
 * Public task boards for their owner (docs/boards.md): the owner's boards with their state and
 * public URL, publishing one from a campaign's open-pickup tasks, and one board with the task
 * behind each ref, its edit form and Withdraw. Titles and task texts are the owner's and agents'
 * words: they go through `html` like everything else.
 */

export type OwnerBoards = Awaited<ReturnType<BoardService['list']>>;
export type OwnerBoard = Awaited<ReturnType<BoardService['get']>>;
export type BoardChoices = Awaited<ReturnType<BoardService['listableTasks']>>;
type Choice = BoardChoices['tasks'][number];
type ListedTask = OwnerBoard['tasks'][number];

/** What the owner typed into a board form, to fill it in again after a refusal. */
export interface BoardDraft {
  slug?: string | undefined;
  title?: string | undefined;
  purpose?: string | undefined;
  /** The tasks ticked, in the order they were sent. */
  taskIds: string[];
}

export interface BoardListView extends Signed {
  boards: OwnerBoards['boards'];
  /** The owner's active campaigns a board may be published from (the newest page of campaigns). */
  campaigns: Array<{ campaign_id: string; title: string }>;
  /** Whether older campaigns exist beyond that page. */
  moreCampaigns: boolean;
  flash?: string | undefined;
  error?: string | undefined;
}

export interface NewBoardView extends Signed {
  choices: BoardChoices;
  draft?: BoardDraft | undefined;
  error?: string | undefined;
}

export interface BoardPageView extends Signed {
  board: OwnerBoard;
  /** The campaign's tasks for the edit form (null once the board is withdrawn). */
  choices: BoardChoices | null;
  draft?: BoardDraft | undefined;
  flash?: string | undefined;
  error?: string | undefined;
}

const RULE =
  'Only tasks whose conditions say participation: OPEN and publish_contract: true, and that are not cancelled, may be listed.';

/** What the owner would change so a task may be listed, beside why it may not. */
function fixFor(t: Choice): string {
  if (t.status === 'CANCELLED') return 'A cancelled task stays off boards: publish a new task instead.';
  return "To list it, its conditions must say participation: OPEN and publish_contract: true: publish a task with Open pickup and Publish the contract chosen on the campaign's page, or an agent that may edit the task sets them with task_edit while it is open.";
}

const statusBadge = (b: { status: string; withdrawn_at: string | null }) =>
  b.withdrawn_at
    ? html`<span class="badge bad">WITHDRAWN</span>`
    : b.status === 'OPEN'
      ? html`<span class="badge on">OPEN</span>`
      : html`<span class="badge off">CLOSED</span>`;

export function boardListPage(v: BoardListView): SafeHtml {
  const rows = v.boards.map(
    (b) => html`<tr id="board-${b.slug}">
      <td><a href="/console/boards/${b.slug}">${b.title}</a><br><code>${b.slug}</code></td>
      <td>${b.purpose}</td>
      <td>${statusBadge(b)}</td>
      <td>${b.tasks_listed} listed<p class="hint">${b.tasks_available} available · ${b.tasks_funded} funded</p></td>
      <td>${b.withdrawn_at ? html`<span class="hint">none: withdrawn ${time(b.withdrawn_at)}</span>` : html`<a href="${b.url}">${b.url}</a>`}</td>
      <td>${time(b.published_at)}<p class="hint"><a href="/console/campaigns/${b.campaign_id}">campaign</a></p></td>
      <td>${
        b.withdrawn_at
          ? html`<a class="button secondary" href="/console/boards/${b.slug}">View</a>`
          : html`<a class="button secondary" href="/console/boards/${b.slug}#edit">Edit</a>
            ${withdrawForm(v.csrf, b.slug, b.title)}`
      }</td>
    </tr>`,
  );
  const table = rows.length
    ? html`<table><thead><tr><th>Board</th><th>Purpose</th><th>Status</th><th>Tasks</th><th>Public URL</th><th>Published</th><th></th></tr></thead>
        <tbody>${rows}</tbody></table>`
    : html`<p class="empty">You have published no board yet.</p>`;
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: 'Boards',
    current: 'boards',
    body: html`<h1>Boards</h1>
      <p class="sub">Public boards list some of a campaign’s tasks for anyone to read at a public URL, each task under an opaque ref: never a task, campaign, agent or owner id. A board is OPEN while at least one of its tasks can be taken now.</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      <section class="panel" id="boards">${table}</section>
      ${publishPanel(v)}`,
  });
}

/** Choosing the campaign to publish from: a plain GET form, no script. */
function publishPanel(v: BoardListView): SafeHtml {
  const more = v.moreCampaigns
    ? html`<p class="hint">Only your newest campaigns are offered here: for an older one, open it from <a href="/console/campaigns">Campaigns</a> and follow “Publish a board”.</p>`
    : '';
  const body = v.campaigns.length
    ? html`<form method="get" action="/console/boards" class="row">
        <div><label for="publish_from">Campaign</label>
          <select id="publish_from" name="publish_from">${v.campaigns.map(
            (c) => html`<option value="${c.campaign_id}">${c.title} · ${c.campaign_id}</option>`,
          )}</select></div>
        <div><button type="submit">Choose tasks</button></div>
      </form>${more}`
    : html`<p class="hint">A board lists tasks of one of your active campaigns, and you have none. <a href="/console/campaigns/new">Create a campaign</a> first.</p>${more}`;
  return html`<section class="panel" id="publish">
    <h2>Publish a board</h2>
    <p class="hint">Choose one of your active campaigns, then the tasks to list. ${RULE}</p>
    ${body}
  </section>`;
}

/** Withdrawing, folded away until asked for (no script: `<details>`), with a box to tick. */
function withdrawForm(csrf: string, slug: string, title: string): SafeHtml {
  return html`<details class="withdraw"><summary>Withdraw</summary>
    <form method="post" action="/console/boards/${slug}/withdraw">
      ${csrfField(csrf)}
      <p class="hint">The board leaves the public at once: its URL answers not found and its task refs are never given out again. Its name stays taken, so a new board needs another one. This cannot be undone.</p>
      <label class="check"><input type="checkbox" name="confirm" value="yes" required> Yes, withdraw ${slug}</label>
      <div class="actions"><button class="danger" type="submit" aria-label="Withdraw ${title}">Withdraw board</button></div>
    </form>
  </details>`;
}

export function newBoardPage(v: NewBoardView): SafeHtml {
  const c = v.choices;
  const path = `/console/campaigns/${c.campaign_id}`;
  const closed = c.campaign_status !== 'ACTIVE';
  const body = closed
    ? notice('info', 'This campaign is closed: a closed campaign gets no new board.')
    : boardForm({
        csrf: v.csrf,
        action: `${path}/boards/new`,
        choices: c,
        draft: v.draft ?? { taskIds: [] },
        withSlug: true,
        submit: 'Publish board',
      });
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: `Publish a board · ${c.campaign_title}`,
    current: 'boards',
    body: html`<p class="hint"><a href="${path}">← Back to the campaign</a> · <a href="/console/boards">All boards</a></p>
      <h1>Publish a board</h1>
      <p class="sub">From ${c.campaign_title} · <code>${c.campaign_id}</code>. Anyone can read a board at its public URL; members see on the ledger that you published it.</p>
      ${v.error ? notice('error', v.error) : ''}
      ${body}`,
  });
}

export function boardPage(v: BoardPageView): SafeHtml {
  const b = v.board;
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: `Board · ${b.title}`,
    current: 'boards',
    body: html`<p class="hint"><a href="/console/boards">← All boards</a></p>
      <h1>${b.title} ${statusBadge(b)}</h1>
      <p class="sub"><code>${b.slug}</code> · from <a href="/console/campaigns/${b.campaign_id}">campaign <code>${b.campaign_id}</code></a></p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      ${factsPanel(b)}
      ${listedPanel(b)}
      ${b.withdrawn_at || !v.choices ? '' : editPanel(v, v.choices)}
      ${b.withdrawn_at ? '' : withdrawPanel(v.csrf, b)}`,
  });
}

function factsPanel(b: OwnerBoard): SafeHtml {
  return html`<section class="panel" id="facts">
    <h2>The board</h2>
    <dl class="facts">
      <dt>Public URL</dt><dd>${b.withdrawn_at ? html`<span class="hint">none: the board was withdrawn ${time(b.withdrawn_at)}; its name and refs are never reused</span>` : html`<a id="public-url" href="${b.url}">${b.url}</a>`}</dd>
      <dt>Purpose</dt><dd>${b.purpose}<p class="hint">${b.purpose_meaning}</p></dd>
      <dt>Tasks</dt><dd>${b.tasks_listed} listed · ${b.tasks_available} available now · ${b.tasks_funded} with a funded reward</dd>
      <dt>Published</dt><dd>${time(b.published_at)}</dd>
      <dt>Changed</dt><dd>${time(b.updated_at)}</dd>
    </dl>
  </section>`;
}

function rewardCell(t: ListedTask): SafeHtml {
  const r = t.reward;
  if (!r) return html`<span class="hint">none</span>`;
  return html`${shown(r)} ${r.funded ? html`<span class="badge on">funded</span>` : html`<span class="badge bad">not funded</span>`}<p class="hint">${r.status}</p>`;
}

function listedPanel(b: OwnerBoard): SafeHtml {
  const rows = b.tasks.map(
    (t, i) => html`<tr id="ref-${t.task_ref}">
      <td>${i + 1}</td>
      <td><code>${t.task_ref}</code></td>
      <td>${t.title}<p class="hint">${lines(t.objective)}</p><code>${t.task_id}</code></td>
      <td><span class="badge">${t.status}</span></td>
      <td>${t.available ? html`<span class="badge on">available</span>` : html`<span class="badge off">not available</span>`}</td>
      <td>${rewardCell(t)}</td>
    </tr>`,
  );
  return html`<section class="panel" id="listed">
    <h2>Listed tasks</h2>
    <p class="hint">The public sees each task under its ref only; the task id is shown to you alone. A task is available while it is open, reserved for nobody, funded if it pays, and its campaign is active.</p>
    ${
      rows.length
        ? html`<table><thead><tr><th>#</th><th>Ref</th><th>Task</th><th>Status</th><th>Now</th><th>Reward</th></tr></thead>
          <tbody>${rows}</tbody></table>`
        : html`<p class="hint">No tasks listed.</p>`
    }
  </section>`;
}

function editPanel(v: BoardPageView, choices: BoardChoices): SafeHtml {
  const b = v.board;
  const draft = v.draft ?? { title: b.title, purpose: b.purpose, taskIds: b.tasks.map((t) => t.task_id) };
  return html`<section class="panel" id="edit">
    <h2>Change the board</h2>
    <p class="hint">A task kept keeps its ref, so links to it still work; a task taken off loses its ref for good.</p>
    ${boardForm({
      csrf: v.csrf,
      action: `/console/boards/${b.slug}`,
      choices,
      draft,
      withSlug: false,
      submit: 'Save changes',
    })}
  </section>`;
}

function withdrawPanel(csrf: string, b: OwnerBoard): SafeHtml {
  return html`<section class="panel danger" id="withdraw">
    <h2>Withdraw the board</h2>
    ${withdrawForm(csrf, b.slug, b.title)}
  </section>`;
}

/**
 * The publish and edit form: slug (publishing only), title, purpose with its meaning, and the
 * campaign's tasks as boxes to tick. The board lists the ticked tasks in the order shown: those
 * ticked first (as they were), then the others newest first. A task that may not be listed is
 * a disabled box with why and what to change.
 */
function boardForm(f: {
  csrf: string;
  action: string;
  choices: BoardChoices;
  draft: BoardDraft;
  withSlug: boolean;
  submit: string;
}): SafeHtml {
  const d = f.draft;
  const purposes = f.choices.purposes.map(
    (
      p,
    ) => html`<label class="check"><input type="radio" name="purpose" value="${p.purpose}" required${p.purpose === d.purpose ? html` checked` : ''}> ${p.purpose}</label>
      <p class="hint">${p.meaning}</p>`,
  );
  const byId = new Map(f.choices.tasks.map((t) => [t.task_id, t]));
  const ticked = d.taskIds.flatMap((id) => byId.get(id) ?? []);
  const rest = f.choices.tasks.filter((t) => !d.taskIds.includes(t.task_id));
  const boxes = [...ticked, ...rest].map((t) => taskBox(t, d.taskIds.includes(t.task_id)));
  const slug = f.withSlug
    ? html`<label for="board_slug">Slug</label>
      <input id="board_slug" name="slug" type="text" required minlength="3" maxlength="64" pattern="[a-z0-9][a-z0-9\\-]{1,62}[a-z0-9]" value="${d.slug ?? ''}">
      <p class="hint">The board’s name in its public URL: 3-64 lower-case letters, digits and inner hyphens, e.g. moorland-birds. It can never be changed or used again, even after the board is withdrawn.</p>`
    : '';
  return html`<form method="post" action="${f.action}">
    ${csrfField(f.csrf)}
    ${slug}
    <label for="board_title">Title</label>
    <input id="board_title" name="title" type="text" required maxlength="200" value="${d.title ?? ''}">
    <fieldset><legend>Purpose: what the work is for, so a taker knows</legend>${purposes}</fieldset>
    <fieldset id="task-choices"><legend>Tasks to list (1-${f.choices.max_tasks}, in the order shown)</legend>
      <p class="hint">${RULE}</p>
      ${boxes.length ? boxes : html`<p class="hint">This campaign has no tasks yet.</p>`}
      ${f.choices.more_tasks ? html`<p class="hint">Only the campaign’s newest tasks are offered here.</p>` : ''}
    </fieldset>
    <div class="actions"><button type="submit">${f.submit}</button></div>
  </form>`;
}

function taskBox(t: Choice, ticked: boolean): SafeHtml {
  const id = `pick-${t.task_id}`;
  if (!t.listable) {
    return html`<div class="task-choice" id="choice-${t.task_id}">
      <label class="check" for="${id}"><input id="${id}" type="checkbox" disabled> ${t.title} <span class="badge">${t.status}</span></label>
      <p class="hint"><code>${t.task_id}</code> · cannot be listed: ${t.reason}. ${fixFor(t)}</p>
    </div>`;
  }
  return html`<div class="task-choice" id="choice-${t.task_id}">
    <label class="check" for="${id}"><input id="${id}" type="checkbox" name="task_ids" value="${t.task_id}"${ticked ? html` checked` : ''}> ${t.title} <span class="badge">${t.status}</span></label>
    <p class="hint"><code>${t.task_id}</code> · published ${time(t.created_at)}</p>
  </div>`;
}
