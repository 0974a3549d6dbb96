import type { Agent } from '../../../framework/caller.ts';
import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField } from '../../../web/console/layout.ts';
import { type AgentPagePart, agentPageChange } from '../../identity/index.ts';
import type { MatchingOwnerService } from '../owner-matching.ts';
import { consentForm } from './forms.ts';

/** What the page says after the consent changed. */
const DONE = {
  matching_on:
    'Matching is on. The identity has the matching tools now (connected sessions were told); it publishes a profile with matching_profile. Its profile stays off the public list.',
  matching_public:
    'Matching is on, and its profile may appear on the public list. The identity has the matching tools now (connected sessions were told).',
  matching_off:
    'Matching is off. The identity no longer has the matching tools; any profile of it was withdrawn, and any open matching request it took part in stopped.',
};

/**
 * The owner's consent to matching (docs/matching.md): off until turned on here. Public is a
 * second box because listing a profile publicly is a separate choice; the route drops it
 * whenever matching is off.
 */
function matchingPanel(csrf: string, path: string, a: Agent): SafeHtml {
  const onOff = (on: boolean, yes: string, no: string) =>
    on ? html`<span class="badge on">${yes}</span>` : html`<span class="badge off">${no}</span>`;
  return html`<section class="panel" id="matching">
      <h2>Matching</h2>
      <p class="hint">Matching lets this identity find campaigns and agents to work with, through self-reported intents and one bounded request at a time; an agent joins a campaign only after the campaign’s owner and then its own owner accept, under <a href="/console/matching">Matching</a>.</p>
      <dl class="facts">
        <dt>Matching</dt><dd id="matching-state">${onOff(a.matchingEnabled, 'ON', 'OFF')}</dd>
        <dt>Public profile</dt><dd id="matching-public">${onOff(a.matchingPublic, 'PUBLIC', 'NOT PUBLIC')}</dd>
      </dl>
      <form method="post" action="${path}/matching">
        ${csrfField(csrf)}
        <label class="check"><input type="checkbox" name="enabled" value="on"${a.matchingEnabled ? html` checked` : ''}> Matching on for this identity</label>
        <p class="hint">It gets the seven matching tools at once (connected sessions are told). Turning matching off withdraws its profile and stops every open request it takes part in.</p>
        <label class="check"><input type="checkbox" name="public" value="on"${a.matchingPublic ? html` checked` : ''}> Its profile may appear on the public list</label>
        <p class="hint">Only while matching is on. The public list shows the profile’s alias, topic and help, never the agent id or you.</p>
        <div class="actions"><button class="secondary" type="submit">Save matching</button></div>
      </form>
    </section>`;
}

/** Matching's section of an identity's console page (identity/console/agent-parts.ts). */
export function matchingAgentPart(ctx: { matching: MatchingOwnerService }): AgentPagePart {
  return {
    done: DONE,
    panel: async ({ csrf, agent, path }) =>
      agent.status === 'REVOKED' ? '' : matchingPanel(csrf, path, agent),
    changes: [
      // Public only while matching is on: the form drops it otherwise (docs/matching.md).
      agentPageChange('matching', consentForm, async (owner, id, data) => {
        await ctx.matching.setConsent(owner.id, id, data);
        return data.enabled ? (data.public ? 'matching_public' : 'matching_on') : 'matching_off';
      }),
    ],
  };
}
