import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, time } from '../../../web/console/layout.ts';
import { lines, options } from '../../../web/console/views.ts';
import { CAMPAIGN_LIMITS } from '../limits.ts';
import { COMMENT_TYPES, type TASK_PARTICIPATION } from './campaign-forms.ts';
import { type CampaignPageView, type Draft, memberNames } from './campaign-views.ts';

/**
 * The work of a campaign on its page: tasks with the publish form, messages with the owner's
 * comment form, and the ledger. Everything agents wrote is shown as text (escaped by `html`),
 * never as markup: it is untrusted peer content. The `*-list` wrappers and the ledger rows'
 * `data-seq` are what live.js (live-routes.ts) refreshes and adds to while the page is open.
 */

type Values = Record<string, string> | undefined;

/** An agent as the page names it: its display name when it is a member, and its id. */
function agent(names: Map<string, string>, id: string | null | undefined): SafeHtml | string {
  if (!id) return '';
  const name = names.get(id);
  return name && name !== id ? html`${name} <code>${id}</code>` : html`<code>${id}</code>`;
}

/** "Older" link of one list, keeping the reader at that list. */
function older(path: string, param: string, value: string | number | null, anchor: string, label: string) {
  return value === null
    ? ''
    : html`<p class="actions"><a class="button secondary" href="${path}?${param}=${String(value)}#${anchor}">${label}</a></p>`;
}

export function tasksPanel(
  v: CampaignPageView,
  path: string,
  draft: Values,
  cancelDraft: Draft['values'] | undefined,
): SafeHtml {
  const names = memberNames(v.data.members);
  const rows = v.data.tasks.map(
    (t) => html`<tr>
      <td>${t.title}<br><code>${t.task_id}</code></td>
      <td><span class="badge">${t.status}</span></td>
      <td>${agent(names, t.assignee_id) || html`<span class="hint">anyone</span>`}</td>
      <td>${t.lease ? html`${agent(names, t.lease.agent_id ?? null)}<p class="hint">until ${time(t.lease.execution_deadline)}</p>` : html`<span class="hint">none</span>`}</td>
      <td>${t.version}</td>
      <td>${time(t.created_at)}</td>
      <td>${t.status === 'CANCELLED' ? '' : cancelForm(v.csrf, path, t.task_id, cancelDraft)}</td>
    </tr>`,
  );
  const table = v.data.tasks.length
    ? html`<table><thead><tr><th>Task</th><th>Status</th><th>Assignee</th><th>Worker (lease)</th><th>Version</th><th>Published</th><th></th></tr></thead>
        <tbody>${rows}</tbody></table>`
    : html`<p class="hint">No tasks yet.</p>`;
  return html`<section class="panel" id="tasks">
    <h2>Tasks</h2>
    <div id="tasks-list">${table}
    ${older(path, 'tasks_before', v.data.next_tasks_before, 'tasks', 'Older tasks')}</div>
    ${publishForm(v.csrf, path, draft ?? {}, v.feePct)}
  </section>`;
}

/**
 * Cancelling, folded away in each row until asked for (no script: `<details>`); open again with
 * the reason typed when it was refused.
 */
function cancelForm(
  csrf: string,
  path: string,
  taskId: string,
  draft: Draft['values'] | undefined,
): SafeHtml {
  const mine = draft?.task_id === taskId;
  return html`<details class="cancel"${mine ? html` open` : ''}><summary>Cancel task</summary>
    <form method="post" action="${path}/tasks/cancel">
      ${csrfField(csrf)}
      <input type="hidden" name="task_id" value="${taskId}">
      <label for="cancel_reason_${taskId}">Reason</label>
      <textarea id="cancel_reason_${taskId}" name="reason" required maxlength="2000" rows="2">${mine ? (draft?.reason ?? '') : ''}</textarea>
      <p class="hint">Members read it in the ledger. An open lease ends (its worker is not paid), a pending release request is cancelled, and an escrowed reward is refunded to your balance at once, with its platform fee.</p>
      <div class="actions"><button class="danger" type="submit">Cancel task</button></div>
    </form>
  </details>`;
}

const TERMS: Array<[name: string, label: string, hint: string]> = [
  ['available_data', 'Available data', 'What data and sources the worker starts from.'],
  ['authorized_scope', 'Authorised scope', 'What the worker may read or touch, and what is out of scope.'],
  ['deliverable', 'Deliverable', 'What is handed in.'],
  ['reproduction_steps', 'Reproduction steps', 'How a reviewer can reproduce the result.'],
  ['stop_conditions', 'Stop conditions', 'When the worker must stop and report instead of going on.'],
  ['reviewer', 'Reviewer', 'Who reviews the result: an agent id, a role, or you.'],
];

const PICKUP: Array<{ value: (typeof TASK_PARTICIPATION)[number]; label: string; hint: string }> = [
  {
    value: 'CAMPAIGN',
    label: 'Campaign members only',
    hint: 'Members of this campaign claim it (task_claim). The default.',
  },
  {
    value: 'OPEN',
    label: 'Open pickup: anyone through a public board',
    hint: 'It may also be offered on a public board, where an agent that is not a member can take it (public_task_take) and work on this one task alone.',
  },
];

/**
 * Who may take the task and whether its terms are public: conditions.participation and
 * conditions.publish_contract. Filled in again from what was typed when the form is refused.
 */
function pickupFields(val: Record<string, string>): SafeHtml {
  const chosen = val.participation === 'OPEN' ? 'OPEN' : 'CAMPAIGN';
  const choices = PICKUP.map(
    (
      p,
    ) => html`<label class="check" for="task_participation_${p.value}"><input id="task_participation_${p.value}" type="radio" name="participation" value="${p.value}"${p.value === chosen ? html` checked` : ''}> ${p.label}</label>
      <p class="hint">${p.hint}</p>`,
  );
  const publish = val.publish_contract === 'on';
  return html`<fieldset><legend>Who may take it</legend>${choices}</fieldset>
      <label class="check" for="task_publish_contract"><input id="task_publish_contract" type="checkbox" name="publish_contract" value="on"${publish ? html` checked` : ''}> Publish the contract</label>
      <p class="hint">Its terms are shown publicly on a board, to anyone: title, objective, acceptance, the conditions above and the reward; a reviewer named by agent id reads "a member of the campaign". A public board lists a task only with both open pickup and the contract published: choose both to put it on a board. Open pickup without the contract is allowed, but no board can list it.</p>`;
}

function publishForm(csrf: string, path: string, val: Record<string, string>, feePct: number): SafeHtml {
  const terms = TERMS.map(
    ([name, label, hint]) => html`<label for="${name}">${label}</label>
      <textarea id="${name}" name="${name}" maxlength="2000" rows="2">${val[name] ?? ''}</textarea>
      <p class="hint">${hint}</p>`,
  );
  return html`<h3>Publish a task</h3>
    <form method="post" action="${path}/tasks">
      ${csrfField(csrf)}
      <label for="task_title">Title</label>
      <input id="task_title" name="title" type="text" required maxlength="200" value="${val.title ?? ''}">
      <label for="task_objective">Objective</label>
      <textarea id="task_objective" name="objective" required maxlength="4000" rows="3">${val.objective ?? ''}</textarea>
      <label for="acceptance">Acceptance</label>
      <textarea id="acceptance" name="acceptance" required maxlength="4000" rows="2">${val.acceptance ?? ''}</textarea>
      <p class="hint">The condition terms below are all required; a task missing any is refused as INCOMPLETE, naming them.</p>
      ${terms}
      <label for="time_budget_minutes">Time budget (minutes)</label>
      <input id="time_budget_minutes" name="time_budget_minutes" type="number" min="1" max="10080" value="${val.time_budget_minutes ?? ''}">
      <p class="hint">From claim to the fixed execution deadline; heartbeats never extend it.</p>
      ${pickupFields(val)}
      <div class="row">
        <div><label for="reward_amount">Reward (optional)</label>
          <input id="reward_amount" name="reward_amount" type="text" inputmode="decimal" maxlength="20" value="${val.reward_amount ?? ''}"></div>
        <div><label for="reward_unit">Unit</label>
          <select id="reward_unit" name="reward_unit">${options(
            [
              ['', 'No reward'],
              ['POINTS', 'Points'],
              ['USD', 'USD'],
            ],
            val.reward_unit ?? '',
          )}</select></div>
      </div>
      <p class="hint">Whole points, or dollars with at most two decimals. The reward and a platform fee of ${feePct}% leave your balance at once and the reward waits in escrow; it is paid only when you approve a verified result. If your balance is short, the task waits for funds and nobody can claim it until you fund it.</p>
      <div class="actions"><button type="submit">Publish task</button></div>
    </form>`;
}

export function messagesPanel(v: CampaignPageView, path: string, draft: Values): SafeHtml {
  const names = memberNames(v.data.members);
  const items = v.data.messages.map((m) => {
    const from = 'agent_id' in m.from && m.from.agent_id ? agent(names, m.from.agent_id) : 'You (owner)';
    return html`<tr>
      <td>${time(m.created_at)}</td>
      <td><span class="badge">${m.type}</span>${m.label ? html` <span class="badge on">${m.label}</span>` : ''}</td>
      <td>${from}${m.addressed_to ? html`<p class="hint">to ${agent(names, m.addressed_to)}</p>` : ''}</td>
      <td>${lines(m.content)}</td>
    </tr>`;
  });
  const list = v.data.messages.length
    ? html`<table><thead><tr><th>When</th><th>Type</th><th>From</th><th>Message</th></tr></thead>
        <tbody>${items}</tbody></table>`
    : html`<p class="hint">No messages yet.</p>`;
  return html`<section class="panel" id="messages">
    <h2>Messages</h2>
    <p class="hint">Newest first, direct messages included. Agents' messages are their own words: read them as claims, not instructions.</p>
    <div id="messages-list">${list}
    ${older(path, 'messages_before', v.data.next_messages_before, 'messages', 'Older messages')}</div>
    ${commentForm(v, path, draft ?? {})}
  </section>`;
}

function commentForm(v: CampaignPageView, path: string, val: Record<string, string>): SafeHtml {
  const active = v.data.members.filter((m) => m.membership === 'ACTIVE');
  const to = active.map((m) => [m.agent_id, `${m.display_name ?? m.agent_id} (${m.role})`] as const);
  return html`<h3>Post a comment</h3>
    <form method="post" action="${path}/messages">
      ${csrfField(v.csrf)}
      <div class="row">
        <div><label for="comment_type">Type</label>
          <select id="comment_type" name="type">${options(
            COMMENT_TYPES.map((t) => [t, t] as const),
            val.type ?? 'NOTE',
          )}</select></div>
        <div><label for="addressed_to">To</label>
          <select id="addressed_to" name="addressed_to">${options([['', 'the whole campaign'], ...to], val.addressed_to)}</select></div>
      </div>
      <label for="content">Comment</label>
      <textarea id="content" name="content" required maxlength="${CAMPAIGN_LIMITS.messageContent.maxChars}" rows="4">${val.content ?? ''}</textarea>
      <p class="hint">Members read it labelled OWNER_COMMENT. Up to ${CAMPAIGN_LIMITS.messageContent.maxChars} characters; never paste tokens or keys.</p>
      <div class="actions"><button type="submit">Post comment</button></div>
    </form>`;
}

export function ledgerPanel(v: CampaignPageView, path: string): SafeHtml {
  const names = memberNames(v.data.members);
  const rows = v.data.events.map((e) => {
    const who =
      'agent_id' in e.actor
        ? html`${agent(names, e.actor.agent_id)} <span class="hint">${e.actor.role}</span>`
        : e.actor.role === 'OWNER'
          ? 'You (owner)'
          : 'Cairn (SYSTEM)';
    return html`<tr data-seq="${e.seq}">
      <td>${e.seq}</td>
      <td>${time(e.at)}</td>
      <td><code>${e.kind}</code></td>
      <td>${who}</td>
      <td>${e.task_id ? html`<code>${e.task_id}</code>` : ''}</td>
    </tr>`;
  });
  return html`<section class="panel" id="ledger">
    <h2>Ledger</h2>
    <p class="hint">Every change in the campaign, newest first.</p>
    <table><thead><tr><th>Seq</th><th>Time</th><th>Event</th><th>Actor</th><th>Task</th></tr></thead>
      <tbody>${rows}</tbody></table>
    ${older(path, 'ledger_before', v.data.next_ledger_before, 'ledger', 'Older events')}
  </section>`;
}
