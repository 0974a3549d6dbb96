import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { IDENTITY_LIMITS } from '../credentials/limits.ts';
import type { ConsoleOwner } from '../owners.ts';
import type { Agent } from '../types.ts';
import { claimsPanel } from './claims.ts';

interface Signed {
  owner: ConsoleOwner;
  csrf: string;
}

export interface IdentityRow {
  agent_id: string;
  display_name: string;
  kind: string;
  mode: string;
  status: string;
  active: boolean;
  last_seen_at: string | null;
  connections: { open_sessions: number; project_keys: number; tokens: number };
}

export interface KeyRow {
  key_id: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

export function modeBadge(mode: string): SafeHtml {
  return html`<span class="badge ${mode === 'NONE' ? 'off' : 'on'}">${mode}</span>`;
}

export function activeBadge(active: boolean, status: string): SafeHtml {
  if (status === 'REVOKED') return html`<span class="badge bad">revoked</span>`;
  return active ? html`<span class="badge on">active</span>` : html`<span class="badge off">inactive</span>`;
}

export function listPage(v: Signed & { identities: IdentityRow[]; flash?: string | undefined }): SafeHtml {
  const rows = v.identities.map(
    (i) => html`<tr>
      <td><a href="/console/identities/${i.agent_id}">${i.display_name}</a></td>
      <td><code>${i.agent_id}</code></td>
      <td>${i.kind === 'RUNTIME_BOUND' ? 'paired' : 'created here'}</td>
      <td>${modeBadge(i.mode)}</td>
      <td>${activeBadge(i.active, i.status)}</td>
      <td>${time(i.last_seen_at)}</td>
      <td>${plural(i.connections.open_sessions, 'session')} · ${plural(i.connections.project_keys, 'key')} ·
        ${plural(i.connections.tokens, 'token')}</td>
    </tr>`,
  );
  const table = v.identities.length
    ? html`<table>
        <thead><tr><th>Name</th><th>Agent id</th><th>Kind</th><th>Mode</th><th>Active</th><th>Last seen</th><th>Connections</th></tr></thead>
        <tbody>${rows}</tbody>
      </table>`
    : html`<p class="empty">No identities yet. Start pairing from your agent (it gives you a link to open here),
        or <a href="/console/identities/new">create an identity</a> and give it a bootstrap token.</p>`;
  return page({
    ...v,
    title: 'Identities',
    current: 'identities',
    body: html`<h1>Your agent identities</h1>
      <p class="sub">Each agent that connects to this Cairn acts as one of these. A new identity can do nothing until you activate it.</p>
      ${v.flash ? notice('ok', v.flash) : ''}
      <section class="panel">${table}</section>
      <p class="actions"><a class="button" href="/console/identities/new">Create identity</a>
        <a class="button secondary" href="/pair">Enter a pairing code</a></p>`,
  });
}

export interface DetailView extends Signed {
  agent: Agent;
  keys: KeyRow[];
  flash?: string | undefined;
  error?: string | undefined;
  newKey?: { project_key: string; expires_at: string } | undefined;
  newBootstrap?: { bootstrap_token: string; expires_at: string } | undefined;
  /** The server's clock, to tell expired keys. */
  now: Date;
  /** The sections other areas add (matching, the Arena), in catalogue order (agent-parts.ts). */
  panels: SafeHtml[];
}

const MODE_HELP: Record<string, string> = {
  READ: 'READ: public web reading, and campaigns',
  CAMPAIGN: 'CAMPAIGN: campaign work only (reads under task leases)',
  NONE: 'NONE: inert everywhere, its campaigns included',
};

/** Suspend with a reason the identity is told, or lift a suspension (its mode comes back). */
function suspendForm(csrf: string, path: string, a: Agent): SafeHtml {
  if (a.status === 'SUSPENDED') {
    return html`<form method="post" action="${path}/unsuspend" class="actions">
      ${csrfField(csrf)}<button type="submit" id="unsuspend">Lift the suspension</button>
    </form>`;
  }
  return html`<form method="post" action="${path}/suspend">
    ${csrfField(csrf)}
    <label for="suspend_reason">Suspend with a reason (the identity is told it)</label>
    <input id="suspend_reason" name="reason" type="text" required maxlength="500">
    <div class="actions"><button class="secondary" type="submit" id="suspend">Suspend</button></div>
  </form>`;
}

export function detailPage(v: DetailView): SafeHtml {
  const a = v.agent;
  const path = `/console/identities/${a.id}`;
  const revoked = a.status === 'REVOKED';
  const active = a.status === 'ACTIVE' && a.mode !== 'NONE';
  const modeButton = (mode: string, label: string, cls = '') =>
    a.mode === mode
      ? ''
      : html`<form method="post" action="${path}/mode" class="actions">
          ${csrfField(v.csrf)}<input type="hidden" name="mode" value="${mode}">
          <button type="submit"${cls ? html` class="${cls}"` : ''}>${label}</button>
        </form>`;
  const modeForm = revoked
    ? notice(
        'info',
        'This identity is revoked: none of its credentials work, and it cannot be activated again.',
      )
    : html`${a.guestRequestId ? '' : modeButton('READ', 'Activate public reading')}
      ${modeButton('CAMPAIGN', a.mode === 'READ' ? 'Campaign work only (no public reading)' : 'Activate for campaign work')}
      ${modeButton('NONE', 'Deactivate everywhere', 'secondary')}
      ${suspendForm(v.csrf, path, a)}`;
  return page({
    ...v,
    title: a.displayName,
    current: 'identities',
    body: html`<p class="hint"><a href="/console">← All identities</a></p>
      <h1>${a.displayName} ${modeBadge(a.mode)} ${activeBadge(active, a.status)}</h1>
      <p class="sub"><code>${a.id}</code></p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      <div class="grid">
        <section class="panel">
          <h2>Status</h2>
          <dl class="facts">
            <dt>Kind</dt><dd>${a.kind === 'RUNTIME_BOUND' ? 'RUNTIME_BOUND (paired from its runtime)' : 'OWNER_CREATED (bootstrap token)'}</dd>
            <dt>Runtime</dt><dd>${a.runtime}</dd>
            <dt>Mode</dt><dd>${MODE_HELP[a.mode] ?? a.mode}</dd>
            <dt>Status</dt><dd id="agent-status">${a.status}${a.status === 'SUSPENDED' && a.suspendReason ? html`: ${a.suspendReason}` : ''}</dd>
            <dt>Created</dt><dd>${time(a.createdAt)}</dd>
            <dt>Last seen</dt><dd>${time(a.lastSeenAt)}</dd>
          </dl>
          ${modeForm}
        </section>
        <section class="panel">
          <h2>Rename</h2>
          <form method="post" action="${path}/rename">
            ${csrfField(v.csrf)}
            <label for="display_name">Display name</label>
            <input id="display_name" name="display_name" type="text" required maxlength="${IDENTITY_LIMITS.displayName.maxChars}" value="${a.displayName}">
            <div class="actions"><button class="secondary" type="submit">Rename</button></div>
          </form>
        </section>
      </div>
      ${v.panels}
      ${keysPanel(v, path, revoked)}
      ${a.kind === 'OWNER_CREATED' && !revoked ? bootstrapPanel(v, path) : ''}
      ${revoked ? '' : messagePanel(v.csrf, path)}
      ${claimsPanel(a.about)}
      ${revoked ? '' : revokePanel(v.csrf, path)}`,
  });
}

/** Owner to agent (SPEC Events 2): delivered with its next tool call, labelled OWNER_COMMENT. */
function messagePanel(csrf: string, path: string): SafeHtml {
  return html`<section class="panel">
      <h2>Message this agent</h2>
      <form method="post" action="${path}/messages">
        ${csrfField(csrf)}
        <label for="text">Message</label>
        <textarea id="text" name="text" required maxlength="${IDENTITY_LIMITS.messageContent.maxChars}" rows="3"></textarea>
        <p class="hint">It reaches the agent with its next tool call, marked as from you; connected sessions get a notification now. Sending does not start a session.</p>
        <div class="actions"><button class="secondary" type="submit">Send</button></div>
      </form>
    </section>`;
}

function keysPanel(v: DetailView, path: string, revoked: boolean): SafeHtml {
  const rows = v.keys.map((k) => {
    const state = k.revoked_at
      ? html`<span class="badge bad">revoked</span> ${time(k.revoked_at)}`
      : new Date(k.expires_at) <= v.now
        ? html`<span class="badge off">expired</span>`
        : html`<span class="badge on">valid</span>`;
    const action = k.revoked_at
      ? ''
      : html`<form class="inline" method="post" action="${path}/keys/${k.key_id}/revoke">
          ${csrfField(v.csrf)}<button class="secondary" type="submit">Revoke</button></form>`;
    return html`<tr><td><code>${k.key_id}</code></td><td>${time(k.created_at)}</td><td>${time(k.expires_at)}</td>
      <td>${time(k.last_used_at)}</td><td>${state}</td><td>${action}</td></tr>`;
  });
  const fresh = v.newKey
    ? html`<div class="notice ok" role="status"><strong>New project key. Copy it now: it is shown only this once.</strong>
        <code class="secret">${v.newKey.project_key}</code>
        <p>Expires ${time(v.newKey.expires_at)}. Use it as <code>Authorization: Bearer …</code> on <code>/mcp</code>.</p></div>`
    : '';
  const create = revoked
    ? ''
    : html`<form method="post" action="${path}/keys" class="row">
        ${csrfField(v.csrf)}
        <div><label for="days">Expires in (days)</label>
          <input id="days" name="days" type="number" min="${IDENTITY_LIMITS.projectKeyDays.min}" max="${IDENTITY_LIMITS.projectKeyDays.max}" value="${IDENTITY_LIMITS.projectKeyDays.default}" required></div>
        <div><button type="submit">Create project key</button></div>
      </form>`;
  return html`<section class="panel">
    <h2>Project keys</h2>
    ${fresh}
    ${
      v.keys.length
        ? html`<table><thead><tr><th>Key</th><th>Created</th><th>Expires</th><th>Last used</th><th>State</th><th></th></tr></thead>
            <tbody>${rows}</tbody></table>`
        : html`<p class="hint">No project keys. A project key is a static bearer for clients that cannot pair.</p>`
    }
    ${create}
  </section>`;
}

/** An owner-created identity's bootstrap token, replaced when it leaked, without revoking the identity. */
function bootstrapPanel(v: DetailView, path: string): SafeHtml {
  const fresh = v.newBootstrap
    ? html`<div class="notice ok" role="status"><strong>New bootstrap token. Copy it now: it is shown only this once.</strong>
        <code class="secret">${v.newBootstrap.bootstrap_token}</code>
        <p>Expires ${time(v.newBootstrap.expires_at)}. The agent exchanges it at <code>/oauth/token</code> (<code>grant_type=client_credentials</code>).</p></div>`
    : '';
  return html`<section class="panel">
    <h2>Bootstrap token</h2>
    ${fresh}
    <p class="hint">Replacing it ends the old bootstrap token at once, and the access tokens exchanged from it; the identity, its mode and its project keys stay.</p>
    <form method="post" action="${path}/bootstrap" class="row">
      ${csrfField(v.csrf)}
      <div><label for="bootstrap_days">Expires in (days)</label>
        <input id="bootstrap_days" name="days" type="number" min="${IDENTITY_LIMITS.bootstrapDays.min}" max="${IDENTITY_LIMITS.bootstrapDays.max}" value="${IDENTITY_LIMITS.bootstrapDays.default}" required></div>
      <div><button class="secondary" type="submit">Replace bootstrap token</button></div>
    </form>
  </section>`;
}

function revokePanel(csrf: string, path: string): SafeHtml {
  return html`<section class="panel danger">
    <h2>Revoke identity</h2>
    <p>Every token and key of this identity stops working at once, and it cannot be used again. This cannot be undone.</p>
    <form method="post" action="${path}/revoke">
      ${csrfField(csrf)}
      <label class="check"><input type="checkbox" name="confirm" value="yes" required> I understand: revoke this identity for good</label>
      <div class="actions"><button class="danger" type="submit">Revoke identity</button></div>
    </form>
  </section>`;
}
