import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { IDENTITY_LIMITS } from '../credentials/limits.ts';
import type { IssuedOwnerToken, OwnerTokenView } from '../credentials/owner-tokens.ts';
import type { ConsoleOwner } from '../owners.ts';

function state(t: OwnerTokenView): SafeHtml {
  if (t.status === 'REVOKED') return html`<span class="badge bad">revoked</span> ${time(t.revoked_at)}`;
  if (t.status === 'EXPIRED') return html`<span class="badge off">expired</span>`;
  return html`<span class="badge on">active</span>`;
}

/** The owner's API tokens: the list (never a secret), a new one shown once, and the create form. */
export function ownerTokensPage(v: {
  owner: ConsoleOwner;
  csrf: string;
  tokens: OwnerTokenView[];
  fresh?: IssuedOwnerToken | undefined;
  flash?: string | undefined;
  error?: string | undefined;
}): SafeHtml {
  const rows = v.tokens.map(
    (t) => html`<tr>
      <td><strong>${t.name}</strong><br><code>${t.prefix}…</code></td>
      <td>${time(t.created_at)}</td><td>${time(t.expires_at)}</td><td>${time(t.last_used_at)}</td>
      <td>${state(t)}</td>
      <td>${
        t.status === 'ACTIVE'
          ? html`<form class="inline" method="post" action="/console/tokens/${t.token_id}/revoke">
              ${csrfField(v.csrf)}<button class="danger" type="submit" aria-label="Revoke ${t.name}">Revoke</button></form>`
          : ''
      }</td>
    </tr>`,
  );
  const fresh = v.fresh
    ? html`<div class="notice ok" role="status"><strong>New owner API token. Copy it now: it is shown only this once.</strong>
        <code class="secret">${v.fresh.token}</code>
        <p>Expires ${time(v.fresh.expires_at)}. Send it as <code>Authorization: Bearer …</code> to the <code>/v1/…</code> owner operations; <code>/mcp</code> never accepts it.</p></div>`
    : '';
  const { min, max, default: days } = IDENTITY_LIMITS.ownerTokenDays;
  return page({
    ...v,
    title: 'API tokens',
    current: 'tokens',
    body: html`<h1>API tokens</h1>
      <p class="sub">Owner API tokens let your scripts call the <code>/v1/…</code> owner operations (connections, campaigns, approvals) as you, without a browser. Anyone holding one acts as you there until it expires or you revoke it. Tokens cannot make tokens, and agents cannot use them.</p>
      ${v.flash ? notice('ok', v.flash) : ''}
      ${v.error ? notice('error', v.error) : ''}
      ${fresh}
      <section class="panel">${
        v.tokens.length
          ? html`<table><thead><tr><th>Name</th><th>Created</th><th>Expires</th><th>Last used</th><th>State</th><th></th></tr></thead>
              <tbody>${rows}</tbody></table>`
          : html`<p class="empty">No API tokens yet.</p>`
      }</section>
      <form class="panel row" method="post" action="/console/tokens">
        ${csrfField(v.csrf)}
        <div><label for="name">Name</label>
          <input id="name" name="name" maxlength="${IDENTITY_LIMITS.ownerTokenName.maxChars}" required></div>
        <div><label for="days">Expires in (days)</label>
          <input id="days" name="days" type="number" min="${min}" max="${max}" value="${days}" required></div>
        <div><button type="submit">Create API token</button></div>
      </form>`,
  });
}
