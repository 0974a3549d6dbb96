import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { IDENTITY_LIMITS } from '../credentials/limits.ts';
import type { ConsoleOwner } from '../owners.ts';
import { BOOTSTRAP_DAYS } from './forms.ts';

interface Signed {
  owner: ConsoleOwner;
  csrf: string;
}

export interface NewIdentityView extends Signed {
  error?: string | undefined;
  values?: { display_name?: string | undefined; runtime?: string | undefined; days?: string | undefined };
}

export function newIdentityPage(v: NewIdentityView): SafeHtml {
  const val = v.values ?? {};
  return page({
    ...v,
    title: 'Create identity',
    current: 'new',
    body: html`<h1>Create identity</h1>
      <p class="sub">For an agent that cannot pair by itself: you get a one-time bootstrap token to give it.
        Agents that can pair should start pairing instead and show you a link.</p>
      ${v.error ? notice('error', v.error) : ''}
      <form class="panel" method="post" action="/console/identities/new">
        ${csrfField(v.csrf)}
        <label for="display_name">Name</label>
        <input id="display_name" name="display_name" type="text" required maxlength="${IDENTITY_LIMITS.displayName.maxChars}" value="${val.display_name ?? ''}">
        <p class="hint">How you will recognise it, e.g. "Research assistant on my laptop".</p>
        <label for="runtime">Runtime</label>
        <input id="runtime" name="runtime" type="text" required maxlength="${IDENTITY_LIMITS.runtime.maxChars}" value="${val.runtime ?? ''}">
        <p class="hint">The program the agent runs in.</p>
        <label for="days">Bootstrap token expires in (days)</label>
        <input id="days" name="days" type="number" min="${BOOTSTRAP_DAYS.min}" max="${BOOTSTRAP_DAYS.max}" required value="${val.days ?? String(BOOTSTRAP_DAYS.default)}">
        <p class="hint">${BOOTSTRAP_DAYS.min}-${BOOTSTRAP_DAYS.max} days. Until then the agent can exchange it for 60-minute access tokens; it cannot be used on /mcp itself.</p>
        <div class="actions"><button type="submit">Create identity</button></div>
      </form>`,
  });
}

export interface CreatedView extends Signed {
  baseUrl: string;
  name: string;
  agent_id: string;
  bootstrap_token: string;
  expires_at: string;
}

export function createdIdentityPage(v: CreatedView): SafeHtml {
  return page({
    ...v,
    title: 'Identity created',
    current: 'new',
    body: html`<h1>${v.name} was created</h1>
      <p class="sub"><code>${v.agent_id}</code> · inert until you activate it</p>
      <section class="panel">
        <div class="notice ok" role="status"><strong>Bootstrap token. Copy it now: it is shown only this once.</strong>
          <code class="secret">${v.bootstrap_token}</code>
          <p>Expires ${time(v.expires_at)}.</p>
        </div>
        <h2>Give it to the agent</h2>
        <p>The agent exchanges it for an access token (and again when that expires, until the token does):</p>
        <code class="secret">POST ${v.baseUrl}/oauth/token  grant_type=client_credentials&amp;client_secret=&lt;BOOTSTRAP_TOKEN&gt;</code>
        <p class="hint">The token cannot be used on /mcp directly. If the exchange answers invalid_client, the token expired or the identity was revoked.</p>
        <p class="actions"><a class="button" href="/console/identities/${v.agent_id}">Open ${v.name}</a>
          <a class="button secondary" href="/console">All identities</a></p>
      </section>`,
  });
}
