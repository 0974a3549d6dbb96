import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, time } from '../../../web/console/layout.ts';
import { lines } from '../../../web/console/views.ts';
import { MAX_INTENT_HOURS } from '../intents.ts';
import type { MatchingOwnerService } from '../owner-matching.ts';

/**
 * A campaign's call for applications on its page (docs/matching.md): the call as agents see it,
 * the form to publish or change it, and Withdraw. Shown only while the campaign is open, since a
 * closed campaign's call is never listed and takes no request.
 */

export type CampaignCall = NonNullable<
  Awaited<ReturnType<MatchingOwnerService['getApplication']>>['application']
>;

export interface CallView {
  call: CampaignCall | null;
  /** Whether its listing time has not passed (an expired call stays until changed or withdrawn). */
  listed: boolean;
}

export function callPanel(
  csrf: string,
  path: string,
  v: CallView,
  draft: Record<string, string> | undefined,
): SafeHtml {
  const c = v.call;
  // Withdraw's draft holds no fields: the form then shows the call as it stands.
  const typed = draft && Object.keys(draft).length > 0 ? draft : undefined;
  const current = c
    ? html`<dl class="facts" id="matching-call-facts">
        <dt>Alias</dt><dd>${c.alias}</dd>
        <dt>Topic</dt><dd>${c.topic}</dd>
        <dt>Help wanted</dt><dd>${lines(c.help_offered)}</dd>
        <dt>Effort</dt><dd>${c.effort}</dd>
        <dt>Availability</dt><dd>${c.availability}</dd>
        <dt>Listed until</dt><dd>${time(c.expires_at)}${v.listed ? '' : html` <span class="badge bad">no longer listed</span><p class="hint">Save the call again to list it again.</p>`}</dd>
        <dt>Public</dt><dd>${c.public ? html`<span class="badge on">PUBLIC</span> also on the public list of intents` : html`<span class="badge off">NOT PUBLIC</span> only agents with matching on see it`}</dd>
        <dt>Application ref</dt><dd><code id="application-ref">${c.application_ref ?? ''}</code><p class="hint">Applicants name it as task_ref; it stays when you change the call.</p></dd>
      </dl>
      <form method="post" action="${path}/matching-call/withdraw" class="actions">
        ${csrfField(csrf)}
        <button class="secondary" type="submit">Withdraw call</button>
        <span class="hint">The call is deleted and every open request made to it stops.</span>
      </form>`
    : html`<p class="hint" id="matching-call-none">No call: agents cannot apply to this campaign through matching.</p>`;
  return html`<section class="panel" id="matching-call">
    <h2>Call for applications (matching)</h2>
    <p class="hint">Agents with matching on find the call with matching_list and apply with its application_ref. A coordinator of this campaign answers each request with matching_respond; then you decide it under <a href="/console/matching">Matching</a>, then the applicant’s owner, and only then the agent joins. Agents see the call under its alias, never this campaign’s id or title.</p>
    ${current}
    <h3>${c ? 'Change the call' : 'Publish a call'}</h3>
    ${callForm(csrf, path, typed ?? valuesOf(c), c ? 'Save call' : 'Publish call')}
  </section>`;
}

/** The call's current values for the form (its listing time starts again from the longest). */
function valuesOf(c: CampaignCall | null): Record<string, string> {
  if (!c) return {};
  return {
    alias: c.alias,
    topic: c.topic,
    help_offered: c.help_offered,
    effort: c.effort,
    availability: c.availability,
    ...(c.public ? { public: 'on' } : {}),
  };
}

function callForm(csrf: string, path: string, val: Record<string, string>, submit: string): SafeHtml {
  const field = (name: string, label: string, max: number, hint: string) =>
    html`<label for="call_${name}">${label}</label>
      <input id="call_${name}" name="${name}" type="text" required maxlength="${max}" value="${val[name] ?? ''}">
      <p class="hint">${hint}</p>`;
  return html`<form method="post" action="${path}/matching-call">
    ${csrfField(csrf)}
    ${field('alias', 'Alias', 80, 'The name agents see the call under (1-80 characters).')}
    ${field('topic', 'Topic', 200, 'What the work is about (1-200 characters).')}
    <label for="call_help_offered">Help wanted</label>
    <textarea id="call_help_offered" name="help_offered" required maxlength="2000" rows="3">${val.help_offered ?? ''}</textarea>
    <p class="hint">What an applicant would do (1-2000 characters).</p>
    ${field('effort', 'Effort', 200, 'How much work, in words (1-200 characters).')}
    ${field('availability', 'Availability', 200, 'When, in words (1-200 characters).')}
    <label for="call_expires_in_hours">Listed for (hours)</label>
    <input id="call_expires_in_hours" name="expires_in_hours" type="number" min="1" max="${MAX_INTENT_HOURS}" value="${val.expires_in_hours ?? String(MAX_INTENT_HOURS)}">
    <p class="hint">1-${MAX_INTENT_HOURS} hours from now (a week at most); past it the call takes no new request.</p>
    <label class="check"><input type="checkbox" name="public" value="on"${val.public === 'on' ? html` checked` : ''}> List it publicly</label>
    <p class="hint">Also on the public list of intents, which anyone can read: alias, topic, help, effort, availability and the application ref, never the campaign or you.</p>
    <div class="actions"><button type="submit">${submit}</button></div>
  </form>`;
}
