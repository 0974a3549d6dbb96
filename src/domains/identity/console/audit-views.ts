import { html, type SafeHtml } from '../../../web/console/html.ts';
import { page, time } from '../../../web/console/layout.ts';
import type { ConsoleOwner } from '../owners.ts';

export interface AuditEntry {
  id: string;
  action: string;
  subject_id: string | null;
  details: Record<string, unknown>;
  at: string;
}

const ACTIONS: Record<string, string> = {
  'agent.approve': 'Approved pairing',
  'agent.decline': 'Declined pairing',
  'agent.create': 'Created identity',
  'agent.activate': 'Activated public reading',
  'agent.deactivate': 'Deactivated',
  'agent.rename': 'Renamed',
  'agent.revoke': 'Revoked identity',
  'key.create': 'Created project key',
  'key.revoke': 'Revoked project key',
  'owner.arena_reviewer': 'Arena reviewer named or unnamed by the operator',
};

function subject(id: string | null): SafeHtml | string {
  if (!id) return '';
  return id.startsWith('agt_')
    ? html`<a href="/console/identities/${id}"><code>${id}</code></a>`
    : html`<code>${id}</code>`;
}

function details(d: Record<string, unknown>): SafeHtml {
  const entries = Object.entries(d).slice(0, 12);
  if (!entries.length) return html``;
  return html`${entries.map(
    ([k, v]) =>
      html`<span class="mono">${k}=${(typeof v === 'string' ? v : JSON.stringify(v)).slice(0, 200)}</span> `,
  )}`;
}

export function auditPage(v: { owner: ConsoleOwner; csrf: string; entries: AuditEntry[] }): SafeHtml {
  const rows = v.entries.map(
    (
      e,
    ) => html`<tr><td>${time(e.at)}</td><td>${ACTIONS[e.action] ?? e.action}<br><span class="hint mono">${e.action}</span></td>
      <td>${subject(e.subject_id)}</td><td>${details(e.details)}</td></tr>`,
  );
  return page({
    ...v,
    title: 'Audit log',
    current: 'audit',
    body: html`<h1>Audit log</h1>
      <p class="sub">Everything done in this console for your identities, newest first.</p>
      <section class="panel">
        ${
          v.entries.length
            ? html`<table><thead><tr><th>When</th><th>Action</th><th>Subject</th><th>Details</th></tr></thead><tbody>${rows}</tbody></table>`
            : html`<p class="empty">Nothing yet.</p>`
        }
      </section>`,
  });
}
