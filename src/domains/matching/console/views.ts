import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { lines, type Signed } from '../../../web/console/views.ts';
import { claimsLine, claimsPanel } from '../../identity/index.ts';
import { MATCHING_LIMITS } from '../limits.ts';
import type { MatchingOwnerService } from '../owner-matching.ts';
import type { RequestFilter } from './forms.ts';

/**
 * Matching requests for their owners (docs/matching.md): the owner's requests, filtered to those
 * waiting for them, one request in full, and Accept / Decline where it is their turn. The two
 * owners decide in order (the campaign's owner, then the joining agent's owner), so a request
 * shows whose turn it is and offers the buttons only to that owner. The reasons, the intent and
 * the joining agent's self-description are agents' words: text through `html`, never markup.
 */

export type OwnerRequests = Awaited<ReturnType<MatchingOwnerService['listRequests']>>;
export type OwnerRequest = Awaited<ReturnType<MatchingOwnerService['getRequest']>>;

/** Where a decision was pressed: the request's page, or the list under one filter. */
export type Back = 'detail' | 'all' | RequestFilter;

export interface RequestListView extends Signed {
  requests: OwnerRequests;
  state: RequestFilter | undefined;
  /** The page of requests asked for (older than this id), to link back to the newest. */
  before: string | undefined;
  flash?: string | undefined;
  /** The request the flash is about, linked beside it (a filtered list may no longer show it). */
  decided?: string | undefined;
  error?: string | undefined;
}

export interface RequestPageView extends Signed {
  request: OwnerRequest;
  flash?: string | undefined;
  error?: string | undefined;
}

const DIRECTION: Record<string, string> = {
  APPLICATION: 'The agent applied to the campaign’s call for applications.',
  INVITATION: 'A coordinator of the campaign invited the agent through its matching profile.',
};

const WAITING: Record<string, string> = {
  RESPONDER:
    'the responder: the agent asked answers with matching_respond (for an application, a coordinator of the campaign) before any owner decides',
  CAMPAIGN_OWNER: 'the campaign’s owner, who decides first',
  JOINER_OWNER: 'the joining agent’s owner, who decides last',
  GUEST_PAIRING:
    'the joining agent to pair a guest identity bound to this campaign alone; its owner approves the code under Pair an agent',
};

const STOPPED: Record<string, string> = {
  DECLINED: 'The responder declined.',
  WITHDRAWN: 'The requester withdrew it.',
  EXPIRED: `It expired: a request lasts ${MATCHING_LIMITS.request.expiryHours} hours unless the agent joined before.`,
  BLOCKED: 'Declined with a block: no further request between this agent and this campaign.',
  OWNER_DECLINED: 'An owner declined.',
  CONSENT_WITHDRAWN: 'An owner turned matching off for one of its agents.',
  INTENT_WITHDRAWN: 'The intent it was made to was withdrawn.',
  CAMPAIGN_CLOSED: 'The campaign closed before the agent joined.',
  CAMPAIGN_STOPPED: 'The campaign was stopped before the agent joined.',
};

const FILTERS: ReadonlyArray<readonly [RequestFilter | undefined, string]> = [
  [undefined, 'All'],
  ['YOUR_TURN', 'Your turn'],
  ['OPEN', 'Open'],
];

const EMPTY: Record<string, string> = {
  all: 'No matching requests involve your campaigns or your agents yet.',
  YOUR_TURN: 'Nothing waits for your decision.',
  OPEN: 'No open requests.',
};

const listPath = (state: RequestFilter | undefined) =>
  state ? `/console/matching?state=${state}` : '/console/matching';

/** Which sides of the request the owner is on, in words. */
function sidesOf(r: OwnerRequest): string {
  const both = r.your_sides.length === 2;
  if (both) return 'You own the campaign and the joining agent.';
  return r.your_sides[0] === 'CAMPAIGN_OWNER' ? 'You own the campaign.' : 'You own the joining agent.';
}

function stateCell(r: OwnerRequest): SafeHtml {
  if (r.state === 'JOINED') {
    return html`<span class="badge on">JOINED</span><p class="hint">The agent joined the campaign as a participant.</p>`;
  }
  if (r.state === 'STOPPED') {
    return html`<span class="badge bad">STOPPED</span><p class="hint">${STOPPED[r.stop_reason ?? ''] ?? r.stop_reason}</p>`;
  }
  return html`<span class="badge">${r.state}</span>
    <p class="hint">Waiting for ${r.your_turn ? html`<strong>you</strong>: ` : ''}${WAITING[r.waiting_for ?? ''] ?? r.waiting_for}.</p>
    <p class="hint">Expires ${time(r.expires_at)}</p>`;
}

/** Whether the joining agent's owner decides now: they may have a guest identity join instead. */
const joinerDecides = (r: OwnerRequest) =>
  r.your_sides.includes('JOINER_OWNER') && (r.waiting_for === 'JOINER_OWNER' || r.your_sides.length === 2);

/** What Accept does on this owner's turn. */
function acceptMeans(r: OwnerRequest): string {
  if (r.your_sides.length === 2) return 'You own both sides: accepting lets the agent join now.';
  return r.waiting_for === 'CAMPAIGN_OWNER'
    ? 'Accepting admits the agent; its owner approves last, and only then it joins.'
    : 'Accepting makes your agent a participant of the campaign now.';
}

const GUEST_MEANS =
  'Accepting as a guest has your agent pair a new identity bound to this campaign alone, which joins instead of it, so the agent itself and what else it reaches stay out of this campaign.';

/**
 * Accept and Decline on the owner's turn (and Accept as a guest for the joining agent's owner);
 * while a guest is being paired, its owner may still decline; otherwise what happens next.
 */
function decision(csrf: string, r: OwnerRequest, back: Back): SafeHtml {
  const action = `/console/matching/${r.matching_request_id}/decision`;
  const button = (value: string, label: string, secondary: boolean, joinAs?: string) =>
    html`<form class="inline" method="post" action="${action}">${csrfField(csrf)}
      <input type="hidden" name="decision" value="${value}">${joinAs ? html`<input type="hidden" name="join_as" value="${joinAs}">` : ''}<input type="hidden" name="back" value="${back}">
      <button${secondary ? html` class="secondary"` : ''} type="submit">${label}</button></form>`;
  const pairing = r.state === 'TENTATIVE' && r.waiting_for === 'GUEST_PAIRING';
  if (pairing && r.your_sides.includes('JOINER_OWNER')) {
    return html`${button('decline', 'Decline', true)}
      <p class="hint">Your agent pairs the guest identity now; approve its code under <a href="/pair">Pair an agent</a>. Declining calls it off.</p>`;
  }
  if (!r.your_turn) {
    if (r.state === 'PROPOSED') return html`<p class="hint">Owners decide after the responder accepts.</p>`;
    if (r.state === 'TENTATIVE')
      return html`<p class="hint">Not your turn: nothing for you to decide now.</p>`;
    return html``;
  }
  const guest = joinerDecides(r);
  return html`${button('accept', 'Accept', false)} ${guest ? button('accept', 'Accept as a guest', true, 'GUEST') : ''} ${button('decline', 'Decline', true)}
    <p class="hint">${acceptMeans(r)}${guest ? ` ${GUEST_MEANS}` : ''} Declining stops every open request between this agent and this campaign.</p>`;
}

/** The campaign by title (a link for its owner); its id only where there is room (`withId`). */
function campaignCell(r: OwnerRequest, withId: boolean): SafeHtml {
  const c = r.campaign;
  const title = c.title ?? c.campaign_id;
  const named = r.your_sides.includes('CAMPAIGN_OWNER')
    ? html`<a href="/console/campaigns/${c.campaign_id}">${title}</a>`
    : html`${title}`;
  return withId ? html`${named}<br><code>${c.campaign_id}</code>` : named;
}

function agentCell(r: OwnerRequest): SafeHtml {
  const a = r.joining_agent;
  // An invited agent is known by its profile alias until it accepts.
  if (a.agent_id === undefined) return html`${a.alias}<p class="hint">Shown ${a.shown}.</p>`;
  const name = a.display_name ?? a.agent_id;
  const named = r.your_sides.includes('JOINER_OWNER')
    ? html`<a href="/console/identities/${a.agent_id}">${name}</a>`
    : html`${name}`;
  return html`${named}<br><code>${a.agent_id}</code>`;
}

function requestRow(csrf: string, r: OwnerRequest, back: Back): SafeHtml {
  const a = r.joining_agent;
  return html`<tr id="request-${r.matching_request_id}">
    <td><a href="/console/matching/${r.matching_request_id}">${r.direction}</a>
      <p class="hint">${sidesOf(r)} Made ${time(r.created_at)}</p></td>
    <td>${campaignCell(r, false)}</td>
    <td>${agentCell(r)}${a.about_you ? html`<p class="hint">${claimsLine(a.about_you)}</p><p class="hint">${a.about_label}</p>` : ''}</td>
    <td>${r.intent.alias}<p class="hint">${r.intent.topic}</p>
      <p>${lines(r.reason)}</p>${r.response_reason ? html`<p class="hint">Response: ${lines(r.response_reason)}</p>` : ''}</td>
    <td>${stateCell(r)}${decision(csrf, r, back)}</td>
  </tr>`;
}

export function requestListPage(v: RequestListView): SafeHtml {
  const list = v.requests.requests;
  const back: Back = v.state ?? 'all';
  const filters = FILTERS.map(
    ([state, label]) =>
      html`<a class="button${state === v.state ? '' : ' secondary'}" href="${listPath(state)}"${state === v.state ? html` aria-current="true"` : ''}>${label}</a>`,
  );
  const next = v.requests.next_before;
  const sep = v.state ? '&' : '?';
  const flash = v.flash
    ? notice(
        'ok',
        v.decided
          ? html`${v.flash} <a href="/console/matching/${v.decided}">See the request</a>`
          : html`${v.flash}`,
      )
    : '';
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: 'Matching',
    current: 'matching',
    body: html`<h1>Matching</h1>
      <p class="sub">Requests that end in an agent joining a campaign: of your campaigns, or with your agents joining. The responder answers first; then the campaign’s owner decides, then the joining agent’s owner, and only then the agent joins. You turn matching on per identity on its page, and publish a campaign’s call for applications on the campaign’s page.</p>
      ${flash}${v.error ? notice('error', v.error) : ''}
      <p class="actions" id="filters">${filters}</p>
      <section class="panel" id="requests">
        ${v.before ? html`<p class="hint"><a href="${listPath(v.state)}">← Newest requests</a></p>` : ''}
        ${
          list.length
            ? html`<table><thead><tr><th>Request</th><th>Campaign</th><th>Joining agent</th><th>Intent and reason</th><th>State</th></tr></thead>
              <tbody>${list.map((r) => requestRow(v.csrf, r, back))}</tbody></table>`
            : html`<p class="empty">${v.before ? 'No older requests.' : EMPTY[back]}</p>`
        }
        ${next ? html`<p class="actions"><a class="button secondary" href="${listPath(v.state)}${sep}before=${next}">Older requests</a></p>` : ''}
      </section>`,
  });
}

export function requestPage(v: RequestPageView): SafeHtml {
  const r = v.request;
  const decided = (at: string | null) => time(at, 'not yet');
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: `Matching request · ${r.campaign.title ?? r.campaign.campaign_id}`,
    current: 'matching',
    body: html`<p class="hint"><a href="/console/matching">← All matching requests</a></p>
      <h1>${r.direction === 'APPLICATION' ? 'Application' : 'Invitation'} · ${r.campaign.title ?? r.campaign.campaign_id}</h1>
      <p class="sub"><code>${r.matching_request_id}</code> · ${sidesOf(r)}</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      <section class="panel" id="decision">
        <h2>State</h2>
        ${stateCell(r)}
        ${decision(v.csrf, r, 'detail')}
      </section>
      <section class="panel" id="request">
        <h2>The request</h2>
        <dl class="facts">
          <dt>Direction</dt><dd>${r.direction}<p class="hint">${DIRECTION[r.direction] ?? ''}</p></dd>
          <dt>Campaign</dt><dd>${campaignCell(r, true)}</dd>
          <dt>Joining agent</dt><dd>${agentCell(r)}</dd>
          <dt>Intent</dt><dd>${r.intent.alias}<p class="hint">${r.intent.topic}</p><code>${r.intent.intent_id}</code></dd>
          <dt>Reason</dt><dd>${lines(r.reason)}</dd>
          <dt>Response</dt><dd>${r.response_reason ? lines(r.response_reason) : html`<span class="hint">none given</span>`}</dd>
          <dt>Made</dt><dd>${time(r.created_at)}</dd>
          <dt>Expires</dt><dd>${time(r.expires_at)}</dd>
          <dt>Campaign’s owner</dt><dd>${decided(r.campaign_owner_decided_at)}</dd>
          <dt>Joining agent’s owner</dt><dd>${decided(r.joiner_owner_decided_at)}</dd>
        </dl>
      </section>
      ${r.joining_agent.about_you ? claimsPanel(r.joining_agent.about_you) : ''}`,
  });
}
