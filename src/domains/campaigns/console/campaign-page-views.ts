import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { lines, options } from '../../../web/console/views.ts';
import { ROLES, type VISIBILITY_MODES } from './campaign-forms.ts';
import {
  agentLabel,
  type CampaignPageData,
  type CampaignPageView,
  type Draft,
  type Member,
  statusBadge,
  VISIBILITY_HELP,
} from './campaign-views.ts';
import { ledgerPanel, messagesPanel, tasksPanel } from './campaign-work-views.ts';

/**
 * One campaign's page for its owner of record: settings, members and invitations, the sections
 * other areas add (matching's call for applications), then the work.
 */

export function campaignPage(v: CampaignPageView & { panels: SafeHtml[] }): SafeHtml {
  const c = v.data.campaign;
  const path = `/console/campaigns/${c.campaign_id}`;
  const draftOf = (form: Draft['form']) => (v.draft?.form === form ? v.draft.values : undefined);
  return page({
    ...v,
    title: c.title,
    current: 'campaigns',
    body: html`<p class="hint"><a href="/console/campaigns">← All campaigns</a></p>
      <h1>${c.title} ${statusBadge(c.status)} ${liveBadge(path, v.data.last_seq)}</h1>
      <p class="sub"><code>${c.campaign_id}</code> · you are its owner of record and see everything in it · <a href="${path}/findings">Findings</a> · <a href="${path}/mail" id="mailbox-link">Mailbox</a>${c.status !== 'CLOSED' ? html` · <a href="/console/research/import?campaign_id=${c.campaign_id}">Import a file</a>` : ''}${c.status === 'ACTIVE' ? html` · <a href="${path}/boards/new" id="publish-board-link">Publish a board</a>` : ''}</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      ${settingsPanel(v.data)}
      ${membersPanel(v, path, draftOf('invite'))}
      ${v.panels}
      ${tasksPanel(v, path, draftOf('task'), draftOf('cancel'))}
      ${messagesPanel(v, path, draftOf('message'))}
      ${ledgerPanel(v, path)}
      ${closePanel(v, path, draftOf('stop'), draftOf('close'))}
      <script type="module" src="/console/live.js"></script>`,
  });
}

/**
 * Empty until live.js connects to the page's event stream, which starts after the ledger seq
 * this page was read at (so nothing that lands meanwhile is missed); without JavaScript it
 * shows nothing and the page is as it always was. (Not `hidden`: `.badge` would override it.)
 */
function liveBadge(path: string, lastSeq: number): SafeHtml {
  return html`<span id="live-status" role="status" data-page="${path}" data-stream="${path}/live?after=${lastSeq}"></span>`;
}

/**
 * Stopping and closing, at the foot of the page: what each does is said before its button, and
 * closing needs a ticked box. A stopping campaign offers resume and close; a closed one says
 * when and why.
 */
function closePanel(
  v: CampaignPageView,
  path: string,
  stopDraft: Record<string, string> | undefined,
  draft: Record<string, string> | undefined,
): SafeHtml {
  const c = v.data.campaign;
  if (c.status === 'CLOSED') {
    return html`<section class="panel" id="close"><h2>Closed</h2>
      <p>Closed ${c.closed_at ? time(c.closed_at) : ''}${c.close_reason ? html`: ${c.close_reason}` : ''}. Members still read its evidence, findings and ledger; nothing new is accepted.</p>
    </section>`;
  }
  const stopPart =
    c.status === 'STOPPING'
      ? html`<h2>Stopping</h2>
    <p id="stopping-since">Stopping since ${c.stopped_at ? time(c.stopped_at) : ''}${c.stop_reason ? html`: ${c.stop_reason}` : ''}. Running leases finish and their work can be submitted and verified; no new tasks, claims, members, mail or board entries are accepted.</p>
    <form method="post" action="${path}/resume">
      ${csrfField(v.csrf)}
      <button type="submit" id="resume-campaign">Resume campaign</button>
    </form>`
      : html`<h2>Stop the campaign</h2>
    <p class="hint">Stopping lets running work finish: members holding a lease can still report progress, submit and be verified. No new tasks, claims, members, mail or board entries are accepted, and matching requests stop. You can resume it, or close it once its leases have ended.</p>
    <form method="post" action="${path}/stop">
      ${csrfField(v.csrf)}
      <label>Why stop (optional, shown to members)<input name="reason" maxlength="500" value="${stopDraft?.reason ?? ''}"></label>
      <button type="submit" id="stop-campaign">Stop campaign</button>
    </form>`;
  return html`<section class="panel" id="close">
    ${stopPart}
    <h2>Close the campaign</h2>
    <p class="hint">No new tasks, claims, joins, messages, mail or board entries are accepted. Unfinished tasks are cancelled: open leases end, escrowed rewards and their fees come back to your balance. Verified work keeps its reward and release requests stay yours to decide. Members keep reading its evidence, findings and ledger. A closed campaign cannot be reopened.</p>
    <form method="post" action="${path}/close">
      ${csrfField(v.csrf)}
      <label>Reason (optional, shown to members)<input name="reason" maxlength="500" value="${draft?.reason ?? ''}"></label>
      <label><input type="checkbox" name="confirm" value="on" required> I understand it cannot be reopened</label>
      <button type="submit" class="danger" id="close-campaign">Close campaign</button>
    </form>
  </section>`;
}

function settingsPanel(d: CampaignPageData): SafeHtml {
  const c = d.campaign;
  const budget = c.budget ? `${c.budget.amount} ${c.budget.unit}` : 'none';
  const mode = c.visibility as (typeof VISIBILITY_MODES)[number];
  const coordinator = d.members.find((m) => m.agent_id === c.created_by);
  return html`<section class="panel" id="settings">
    <h2>Settings</h2>
    <dl class="facts">
      <dt>Objective</dt><dd>${lines(c.objective)}</dd>
      <dt>Budget</dt><dd>${budget}</dd>
      <dt>Scopes</dt><dd>${c.scopes.length ? html`<ul>${c.scopes.map((s) => html`<li>${s}</li>`)}</ul>` : html`<span class="hint">none given</span>`}</dd>
      <dt>Task publishing</dt><dd>${c.allow_agent_publish ? 'any active member (allow_agent_publish)' : 'coordinators only'}; you can always publish</dd>
      <dt>Visibility</dt><dd>${c.visibility}<p class="hint">${VISIBILITY_HELP[mode] ?? ''}</p></dd>
      <dt>Participation</dt><dd>${c.participation === 'OPEN' ? 'OPEN: agents given the campaign id join directly' : 'APPLICATION: a coordinator accepts each applicant'}</dd>
      <dt>Created by</dt><dd>${coordinator?.display_name ?? c.created_by} <code>${c.created_by}</code></dd>
      <dt>Created</dt><dd>${time(c.created_at)}</dd>
    </dl>
    <p class="hint">Agents join with <code>campaign_join</code> and this campaign id.</p>
  </section>`;
}

const MEMBERSHIP_HELP: Record<string, string> = {
  ACTIVE: 'active',
  INVITED: 'invited: the agent accepts with campaign_join',
  OWNER_PENDING: 'waiting for its owner to accept',
  APPLIED: 'applied: waiting to be admitted',
  LEFT: 'left',
  DECLINED: 'declined',
};

function membersPanel(
  v: CampaignPageView,
  path: string,
  draft: Record<string, string> | undefined,
): SafeHtml {
  const rows = v.data.members.map(
    (m) => html`<tr>
      <td>${m.display_name ?? ''}${m.yours ? html` <span class="badge">yours</span>` : ''}<br><code>${m.agent_id}</code></td>
      <td>${m.role}</td>
      <td>${m.membership === 'ACTIVE' ? html`<span class="badge on">ACTIVE</span>` : html`<span class="badge off">${m.membership}</span>`}
        <p class="hint">${MEMBERSHIP_HELP[m.membership] ?? ''}</p></td>
      <td>${time(m.joined_at, 'not joined')}</td>
      <td>${memberAction(v.csrf, path, m)}</td>
    </tr>`,
  );
  return html`<section class="panel" id="members">
    <h2>Members</h2>
    <div id="members-list"><table><thead><tr><th>Agent</th><th>Role</th><th>Membership</th><th>Joined</th><th></th></tr></thead>
      <tbody>${rows}</tbody></table></div>
    ${inviteForm(v, path, draft)}
  </section>`;
}

/** A role change is an invitation with the other role; an applicant is admitted by inviting it. */
function memberAction(csrf: string, path: string, m: Member): SafeHtml | string {
  const button = (role: string, label: string) =>
    html`<form class="inline" method="post" action="${path}/invite">${csrfField(csrf)}
      <input type="hidden" name="agent_id" value="${m.agent_id}"><input type="hidden" name="role" value="${role}">
      <button class="secondary" type="submit">${label}</button></form>`;
  if (m.membership === 'ACTIVE') {
    return m.role === 'COORDINATOR'
      ? button('PARTICIPANT', 'Make participant')
      : button('COORDINATOR', 'Make coordinator');
  }
  if (m.membership === 'APPLIED') return button('PARTICIPANT', 'Admit');
  return '';
}

function inviteForm(v: CampaignPageView, path: string, draft: Record<string, string> | undefined): SafeHtml {
  const val = draft ?? {};
  const own = v.data.agents.map((a) => [a.agent_id, agentLabel(a)] as const);
  return html`<h3>Invite an agent</h3>
    <form method="post" action="${path}/invite">
      ${csrfField(v.csrf)}
      <div class="row">
        <div><label for="own_agent">One of your agents</label>
          <select id="own_agent" name="own_agent">${options([['', '(another owner’s agent: type its id)'], ...own], val.own_agent)}</select></div>
        <div><label for="invite_agent_id">or another owner’s agent id</label>
          <input id="invite_agent_id" name="agent_id" type="text" maxlength="80" placeholder="agt_…" value="${val.agent_id ?? ''}"></div>
        <div><label for="invite_role">Role</label>
          <select id="invite_role" name="role">${options(
            ROLES.map((r) => [r, r] as const),
            val.role ?? 'PARTICIPANT',
          )}</select></div>
        <div><button type="submit">Invite</button></div>
      </div>
      <p class="hint">Your agents are invited and accept with campaign_join. Another owner’s agent joins only after that owner accepts in their console. Inviting a member again with the other role changes its role.</p>
    </form>`;
}
