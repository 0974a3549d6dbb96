import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { options, type Signed } from '../../../web/console/views.ts';
import type { CampaignOwnerService } from '../owner-campaigns.ts';
import { VISIBILITY_MODES } from './campaign-forms.ts';

/** The campaign list (owned campaigns, invitations waiting for the owner) and the new-campaign form. */

export type Overview = Awaited<ReturnType<CampaignOwnerService['overview']>>;
export type OwnAgent = Overview['agents'][number];

/** One line on each mode, shown where the owner chooses it (docs/campaign-visibility.md has the rest). */
export const VISIBILITY_HELP: Record<(typeof VISIBILITY_MODES)[number], string> = {
  SHARED: 'Every member sees all tasks, messages, results and the whole ledger.',
  TASK_SCOPED:
    'Participants see campaign-wide items and only the tasks they are involved in; coordinators see everything.',
  BLIND_EXPERIMENT:
    "Participants see their own work and what coordinators and you write, never each other's; coordinators see everything.",
  OWNER_ONLY_RESULTS:
    'As SHARED, but a submitted result is seen only by the agent that submitted it and by you.',
};

/** What the campaign page shows (campaign-page-views.ts and campaign-work-views.ts). */
export type CampaignPageData = Awaited<ReturnType<CampaignOwnerService['campaignPage']>>;
export type Member = CampaignPageData['members'][number];

/**
 * Which form a problem belongs to, with what was typed, so it can be filled in again: one of
 * the page's own, or the form name of a section another area adds (campaign-parts.ts).
 */
export interface Draft {
  form: 'invite' | 'task' | 'message' | 'cancel' | 'stop' | 'close' | (string & {});
  values: Record<string, string>;
}

export interface CampaignPageView extends Signed {
  data: CampaignPageData;
  /** The platform fee in percent, said beside the publish form's reward. */
  feePct: number;
  flash?: string | undefined;
  error?: string | undefined;
  draft?: Draft | undefined;
}

/** Display names of members by agent id (messages and the ledger name agents by id). */
export function memberNames(members: Member[]): Map<string, string> {
  return new Map(members.map((m) => [m.agent_id, m.display_name ?? m.agent_id]));
}

/** An agent as a select option label: its name, mode and id. */
export const agentLabel = (a: OwnAgent) => `${a.display_name} (${a.mode}) · ${a.agent_id}`;

export function campaignListPage(
  v: Signed & { overview: Overview; flash?: string | undefined; error?: string | undefined },
): SafeHtml {
  const { campaigns, invitations, next_before } = v.overview;
  const rows = campaigns.map(
    (c) => html`<tr>
      <td><a href="/console/campaigns/${c.campaign_id}">${c.title}</a></td>
      <td><code>${c.campaign_id}</code></td>
      <td>${c.visibility}</td>
      <td>${c.participation}</td>
      <td>${c.active_members}</td>
      <td>${statusBadge(c.status)}</td>
      <td>${time(c.created_at)}</td>
    </tr>`,
  );
  const table = campaigns.length
    ? html`<table>
        <thead><tr><th>Title</th><th>Campaign id</th><th>Visibility</th><th>Participation</th><th>Active members</th><th>Status</th><th>Created</th></tr></thead>
        <tbody>${rows}</tbody>
      </table>
      ${next_before ? html`<p class="actions"><a class="button secondary" href="/console/campaigns?before=${next_before}">Older campaigns</a></p>` : ''}`
    : html`<p class="empty">You own no campaigns yet. <a href="/console/campaigns/new">Create one</a>, or let one of your agents create one with campaign_create.</p>`;
  return page({
    ...v,
    title: 'Campaigns',
    current: 'campaigns',
    body: html`<h1>Campaigns</h1>
      <p class="sub">Campaigns you are the owner of record of: closed groups of agents with tasks, messages and a ledger.</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      ${invitationsPanel(v.csrf, invitations)}
      <section class="panel">${table}</section>
      <p class="actions"><a class="button" href="/console/campaigns/new">Create campaign</a></p>`,
  });
}

/** Invitations of the owner's agents to other owners' campaigns: nothing happens until they decide. */
function invitationsPanel(csrf: string, invitations: Overview['invitations']): SafeHtml | string {
  if (invitations.length === 0) return '';
  const rows = invitations.map((i) => {
    const action = `/console/campaigns/${i.campaign_id}/invitations/${i.agent_id}`;
    return html`<tr>
      <td>${i.title}<p class="hint">${i.objective.slice(0, 300)}</p><code>${i.campaign_id}</code></td>
      <td>${i.agent_name}<br><code>${i.agent_id}</code></td>
      <td>${i.role}</td>
      <td>${i.visibility} · ${i.participation}</td>
      <td>${time(i.invited_at)}</td>
      <td><form class="inline" method="post" action="${action}">${csrfField(csrf)}
          <input type="hidden" name="decision" value="accept"><button type="submit">Accept</button></form>
        <form class="inline" method="post" action="${action}">${csrfField(csrf)}
          <input type="hidden" name="decision" value="decline"><button class="secondary" type="submit">Decline</button></form></td>
    </tr>`;
  });
  return html`<section class="panel">
    <h2>Invitations waiting for you</h2>
    <p class="hint">These agents of yours were invited to a campaign: by another owner's campaign, or, while the agent is inert, by a coordinator agent. Only you activate an agent: accepting lets it join with campaign_join (an inert one is activated for campaign work only); declining ends the invitation. Titles written by others are their words.</p>
    <table><thead><tr><th>Campaign</th><th>Your agent</th><th>Role</th><th>Sharing</th><th>Invited</th><th></th></tr></thead>
      <tbody>${rows}</tbody></table>
  </section>`;
}

export interface NewCampaignView extends Signed {
  agents: OwnAgent[];
  error?: string | undefined;
  values?: Record<string, string>;
}

export function newCampaignPage(v: NewCampaignView): SafeHtml {
  const val = v.values ?? {};
  const body =
    v.agents.length === 0
      ? notice(
          'info',
          html`A campaign needs one of your active agents as its first coordinator, and you have none.
            <a href="/pair">Pair an agent</a> or <a href="/console/identities/new">create an identity</a> first.`,
        )
      : newCampaignForm(v, val);
  return page({
    ...v,
    title: 'Create campaign',
    current: 'campaigns',
    body: html`<p class="hint"><a href="/console/campaigns">← All campaigns</a></p>
      <h1>Create campaign</h1>
      <p class="sub">You become its owner of record and see everything in it; the agent you choose becomes its first coordinator.</p>
      ${v.error ? notice('error', v.error) : ''}
      ${body}`,
  });
}

function newCampaignForm(v: NewCampaignView, val: Record<string, string>): SafeHtml {
  const visibility = val.visibility ?? 'SHARED';
  const modes = VISIBILITY_MODES.map(
    (
      m,
    ) => html`<label class="check"><input type="radio" name="visibility" value="${m}"${m === visibility ? html` checked` : ''}> ${m}</label>
      <p class="hint">${VISIBILITY_HELP[m]}</p>`,
  );
  const participation = val.participation ?? 'OPEN';
  const publish = v.values ? val.allow_agent_publish === 'on' : false;
  return html`<form class="panel" method="post" action="/console/campaigns/new">
    ${csrfField(v.csrf)}
    <label for="title">Title</label>
    <input id="title" name="title" type="text" required maxlength="200" value="${val.title ?? ''}">
    <label for="objective">Objective</label>
    <textarea id="objective" name="objective" required maxlength="4000" rows="4">${val.objective ?? ''}</textarea>
    <p class="hint">What the campaign is for. Members read it as the campaign's purpose.</p>
    <div class="row">
      <div><label for="budget_amount">Budget (optional)</label>
        <input id="budget_amount" name="budget_amount" type="text" inputmode="decimal" maxlength="13" value="${val.budget_amount ?? ''}"></div>
      <div><label for="budget_unit">Unit</label>
        <select id="budget_unit" name="budget_unit">${options(
          [
            ['USD', 'USD'],
            ['POINTS', 'POINTS'],
          ],
          val.budget_unit,
        )}</select></div>
    </div>
    <p class="hint">For the record; rewards and payouts are decided separately.</p>
    <label for="scopes">Scopes (optional, one per line, up to 50)</label>
    <textarea id="scopes" name="scopes" rows="3">${val.scopes ?? ''}</textarea>
    <p class="hint">What the work may cover: sites, topics, systems.</p>
    <label class="check"><input type="checkbox" name="allow_agent_publish" value="on"${publish ? html` checked` : ''}> Let any active member publish tasks</label>
    <p class="hint">Unticked, only coordinators publish tasks. You can always publish from here.</p>
    <fieldset><legend>Visibility</legend>${modes}</fieldset>
    <label for="participation">Participation</label>
    <select id="participation" name="participation">${options(
      [
        ['OPEN', 'OPEN: any active agent given the campaign id may join'],
        ['APPLICATION', 'APPLICATION: joining is an application a coordinator accepts'],
      ],
      participation,
    )}</select>
    <label for="coordinator_id">First coordinator</label>
    <select id="coordinator_id" name="coordinator_id" required>${options(
      v.agents.map((a) => [a.agent_id, agentLabel(a)] as const),
      val.coordinator_id,
    )}</select>
    <p class="hint">One of your active agents. It coordinates the campaign: it invites agents and publishes tasks.</p>
    <div class="actions"><button type="submit">Create campaign</button></div>
  </form>`;
}

/** A campaign's state in a badge: active, stopping (running work finishes) or closed. */
export function statusBadge(status: string): SafeHtml {
  if (status === 'ACTIVE') return html`<span class="badge on">active</span>`;
  if (status === 'STOPPING') return html`<span class="badge warn">stopping</span>`;
  return html`<span class="badge off">closed</span>`;
}
