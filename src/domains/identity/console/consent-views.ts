import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, messagePage, notice, page, time } from '../../../web/console/layout.ts';
import { IDENTITY_LIMITS } from '../credentials/limits.ts';
import type { OAuthConsentService } from '../credentials/oauth-consent.ts';
import type { ConsentRequest } from '../credentials/oauth-request.ts';
import type { ConsoleOwner } from '../owners.ts';

interface Signed {
  owner: ConsoleOwner;
  csrf: string;
}

/** One of the owner's OAuth connections, as the consent service lists them. */
export type ConnectionRow = Awaited<ReturnType<OAuthConsentService['connections']>>[number];

/**
 * The review page of a pending authorization request. The application's name is whatever it
 * registered, so it is labelled as such; the return address is what the owner can actually
 * check, so its host is shown large and the whole URI below it.
 */
export function reviewPage(v: Signed & { request: ConsentRequest; error?: string | undefined }): SafeHtml {
  const r = v.request;
  return page({
    ...v,
    title: `Connect ${r.client.client_name}?`,
    current: 'connections',
    body: html`<h1>An application asks to connect</h1>
      <p class="sub">Allow only if you started connecting this application yourself, just now, and the return address below is where you expect it to be.</p>
      ${v.error ? notice('error', v.error) : ''}
      ${r.warnings.map((w) => notice('error', w))}
      ${applicationPanel(r)}
      <section class="panel">
        <h2>Return address</h2>
        <p class="hint">After you decide, your browser is sent to this host with the answer:</p>
        <p class="code" id="return-host">${r.return_host}</p>
        <dl class="facts">
          <dt>Full address</dt><dd><code>${r.redirect_uri}</code></dd>
          <dt>Scope</dt><dd><code>${r.scope}</code></dd>
          ${r.scopes.map((s) => html`<dt><code>${s.scope}</code></dt><dd>${s.meaning}</dd>`)}
          <dt>Request expires</dt><dd>${time(r.expires_at)}</dd>
        </dl>
      </section>
      <section class="panel">
        <h2>What Allow grants</h2>
        <ul>${r.grants.map((g) => html`<li>${g}</li>`)}</ul>
      </section>
      <form class="panel" method="post" action="/console/authorize/${r.request_id}">
        ${csrfField(v.csrf)}
        <p class="hint">Decline sends the application away with nothing.</p>
        ${extendChoices(r)}
        <div class="actions">
          <button type="submit" name="decision" value="allow">Allow${r.extendable.length > 0 ? ' as a new identity' : ''}</button>
          <button class="secondary" type="submit" name="decision" value="decline">Decline</button>
        </div>
      </form>`,
  });
}

/**
 * A step-up (the application asks again, for more scopes): the identities it already connected
 * for this owner, each a button that gives the requested scopes to that identity, keeping its
 * campaigns and history. A new identity remains the plain Allow.
 */
function extendChoices(r: ConsentRequest): SafeHtml | string {
  if (r.extendable.length === 0) return '';
  return html`<p class="hint">This application is already connected as the identities below. If it is asking again for more, give the scopes to the one it runs as:</p>
        <div class="actions">${r.extendable.map(
          (i) =>
            html`<button type="submit" name="decision" value="extend:${i.agent_id}">Allow for ${i.agent_name} (now ${i.scope})</button>`,
        )}</div>`;
}

/**
 * Who the application says it is. A registered client's name is only what it registered; a
 * client named by its metadata document's URL is vouched for by the host that serves that
 * document, so the host is shown large, as the return address is (draft-ietf-oauth-client-id-
 * metadata-document §8.3: show the client_id's host).
 */
function applicationPanel(r: ConsentRequest): SafeHtml {
  const host = r.client.metadata_document_host;
  if (host === null) {
    return html`<section class="panel claims">
        <h2>Application <small>self-described, not verified</small></h2>
        <p class="hint">The application chose this name when it registered. Cairn has not checked it: anyone can register any name.</p>
        <dl class="facts">
          <dt>Name it gives</dt><dd><strong>${r.client.client_name}</strong></dd>
          <dt>Client id</dt><dd><code>${r.client.client_id}</code></dd>
        </dl>
      </section>`;
  }
  return html`<section class="panel claims">
        <h2>Application <small>described by ${host}</small></h2>
        <p class="hint">Cairn read this application's description over HTTPS from the host below. The name is what that host says; allow only if the host belongs to the application's maker.</p>
        <p class="code" id="client-host">${host}</p>
        <dl class="facts">
          <dt>Name it gives</dt><dd><strong>${r.client.client_name}</strong></dd>
          <dt>Client id</dt><dd><code>${r.client.client_id}</code></dd>
        </dl>
      </section>`;
}

/** A request that can no longer be decided: it expired, or someone already answered it. */
export function requestClosedPage(v: Signed & { request: ConsentRequest }): SafeHtml {
  const r = v.request;
  const links: Array<[string, string]> = [
    ['/console/connections', 'Your connections'],
    ['/console', 'Back to the console'],
  ];
  if (r.status === 'EXPIRED') {
    return messagePage({
      ...v,
      title: 'This request expired',
      message: html`The request from ${r.client.client_name} was not answered in time, so nothing was granted. Start connecting again from the application.`,
      kind: 'info',
      links,
    });
  }
  const decided = r.status === 'APPROVED' ? 'allowed' : 'declined';
  return messagePage({
    ...v,
    title: 'Already decided',
    message: html`This request from ${r.client.client_name} was already ${decided}; it cannot be decided again. If you did not expect this, check your connections and revoke any you do not recognise.`,
    kind: 'info',
    links,
  });
}

function statusBadge(status: string): SafeHtml {
  if (status === 'ACTIVE') return html`<span class="badge on">active</span>`;
  if (status === 'REVOKED') return html`<span class="badge bad">revoked</span>`;
  return html`<span class="badge off">${status.toLowerCase()}</span>`;
}

/** The owner's OAuth connections, with a Revoke button on each active one. */
export function connectionsPage(
  v: Signed & { connections: ConnectionRow[]; flash?: string | undefined },
): SafeHtml {
  const rows = v.connections.map(
    (c) => html`<tr>
      <td><strong>${c.client.client_name}</strong><br><code>${c.client.client_id}</code></td>
      <td><a href="/console/identities/${c.agent_id}">${c.agent_name}</a></td>
      <td>${time(c.approved_at)}</td>
      <td>${time(c.expires_at)}</td>
      <td>${time(c.last_used_at)}</td>
      <td>${statusBadge(c.status)}${c.revoked_at ? html`<br>${time(c.revoked_at)}` : ''}</td>
      <td>${
        c.status === 'ACTIVE'
          ? html`<form class="inline" method="post" action="/console/connections/${c.grant_id}/revoke">
              ${csrfField(v.csrf)}
              <button class="danger" type="submit" aria-label="Revoke ${c.client.client_name}">Revoke</button>
            </form>`
          : ''
      }</td>
    </tr>`,
  );
  const table = v.connections.length
    ? html`<table>
        <thead><tr><th>Application</th><th>Identity</th><th>Approved</th><th>Expires</th><th>Last used</th><th>Status</th><th></th></tr></thead>
        <tbody>${rows}</tbody>
      </table>`
    : html`<p class="empty">No connections yet. When you allow an application (an MCP client signing in with OAuth), it appears here.</p>`;
  return page({
    ...v,
    title: 'Connections',
    current: 'connections',
    body: html`<h1>Connections</h1>
      <p class="sub">Applications you allowed to connect with OAuth. Each has an identity of its own with public reading only, for up to ${IDENTITY_LIMITS.oauthConnectionDays} days from approval. Revoking one stops its tokens at once.</p>
      ${v.flash ? notice('ok', v.flash) : ''}
      <section class="panel">${table}</section>`,
  });
}
