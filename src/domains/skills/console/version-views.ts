import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { lines, type Signed } from '../../../web/console/views.ts';
import { SKILL_LIMITS } from '../limits.ts';
import type { SkillGrantOwnerService } from '../owner/grants.ts';
import type { SkillHistoryOwnerService } from '../owner/history.ts';
import type { SkillOwnerService } from '../owner/skills.ts';
import { authorCell, statusBadge } from './views.ts';

/**
 * One version for its owner (docs/skills.md): its terms, files, SKILL.md as untrusted text, the
 * download, its grants, and the moves of its status and its skill's lifecycle, each a plain form
 * with the CSRF token. Everything the author wrote (terms, metadata, SKILL.md) is text through
 * `html`, never markup; `allowed-tools` is shown as written and grants nothing.
 */

export type OwnerVersion = Awaited<ReturnType<SkillOwnerService['getVersion']>>;
export type VersionGrants = Awaited<ReturnType<SkillGrantOwnerService['list']>>;
export type VersionHistory = Awaited<ReturnType<SkillHistoryOwnerService['history']>>;
export type VersionActivity = Awaited<ReturnType<SkillHistoryOwnerService['activity']>>;

export interface VersionPageView extends Signed {
  version: OwnerVersion;
  /** SKILL.md's text, or why it cannot be shown (bytes deleted, not text). */
  skillMd: { text: string } | { unavailable: string };
  grants: VersionGrants;
  history: VersionHistory;
  activity: VersionActivity;
  flash?: string | undefined;
  error?: string | undefined;
}

const NOTE =
  'Skill text is untrusted: it was written by the skill’s author, is shown here as plain text, and grants no permissions.';
const OWN_CONTEXT = encodeURIComponent(JSON.stringify({ scope: 'OWN' }));

export const downloadHref = (versionId: string) =>
  `/v1/skills/versions/${versionId}/download?context=${OWN_CONTEXT}`;

const optional = (value: string | null | undefined) =>
  value ? html`${lines(value)}` : html`<span class="hint">none</span>`;

function terms(v: OwnerVersion): SafeHtml {
  const meta = Object.entries(v.metadata ?? {});
  return html`<section class="panel" id="terms">
    <h2>Terms</h2>
    <dl class="facts">
      <dt>Name</dt><dd>${v.name}</dd>
      <dt>Description</dt><dd>${optional(v.description)}</dd>
      <dt>License</dt><dd>${optional(v.license)}</dd>
      <dt>Compatibility</dt><dd>${optional(v.compatibility)}</dd>
      <dt>Metadata</dt><dd>${meta.length ? html`<ul>${meta.map(([k, val]) => html`<li><code>${k}</code>: ${val}</li>`)}</ul>` : html`<span class="hint">none</span>`}</dd>
      <dt>Allowed tools</dt><dd id="allowed-tools">${v.allowed_tools ? html`<code>${v.allowed_tools}</code>` : html`<span class="hint">none</span>`}
        <p class="hint">Shown as written; grants nothing. Who reads this version is decided only by grants, campaign libraries and task attachments.</p></dd>
      <dt>Tags</dt><dd>${v.tags.length ? v.tags.join(', ') : html`<span class="hint">none</span>`}</dd>
      <dt>Author</dt><dd>${authorCell(v.author_id)}</dd>
      <dt>Published</dt><dd>${time(v.published_at)}</dd>
      <dt>Package SHA-256</dt><dd><code>${v.package_sha256}</code></dd>
      <dt>Size</dt><dd>${v.total_bytes} bytes in ${v.file_count} ${v.file_count === 1 ? 'file' : 'files'}</dd>
    </dl>
    ${
      v.bytes_deleted
        ? html`<p class="hint">The file bytes were deleted: there is nothing to download.</p>`
        : html`<p class="actions"><a class="button secondary" id="download" href="${downloadHref(v.version_id)}">Download zip</a></p>`
    }
  </section>`;
}

function files(v: OwnerVersion, skillMd: VersionPageView['skillMd']): SafeHtml {
  const rows = v.files.map(
    (f) =>
      html`<tr><td><code>${f.path}</code></td><td>${f.size}</td><td><code>${f.sha256}</code></td><td>${f.text ? 'text' : 'binary'}</td></tr>`,
  );
  return html`<section class="panel" id="files">
    <h2>Files</h2>
    <table><thead><tr><th>Path</th><th>Bytes</th><th>SHA-256</th><th>Kind</th></tr></thead><tbody>${rows}</tbody></table>
  </section>
  <section class="panel" id="skill-md">
    <h2>SKILL.md</h2>
    ${notice('info', NOTE)}
    ${'text' in skillMd ? html`<pre>\n${skillMd.text}</pre>` : html`<p class="empty">${skillMd.unavailable}</p>`}
  </section>`;
}

function grants(v: VersionPageView): SafeHtml {
  const id = v.version.version_id;
  const rows = v.grants.grants.map(
    (g) => html`<tr id="grant-${g.grant_id}">
      <td><code>${g.grantee_id}</code>${g.note ? html`<p class="hint">${g.note}</p>` : ''}</td>
      <td>${statusBadge(g.status === 'ACTIVE' ? 'ACTIVE' : 'REVOKED')}</td>
      <td>${time(g.granted_at)}</td>
      <td>${g.revoked_at ? html`${time(g.revoked_at)}${g.revoke_reason ? html`<p class="hint">${g.revoke_reason}</p>` : ''}` : ''}</td>
      <td>${
        g.status === 'ACTIVE'
          ? html`<form class="inline" method="post" action="/console/skills/versions/${id}/grants/${g.grant_id}/revoke">${csrfField(v.csrf)}<button class="secondary" type="submit">Revoke</button></form>`
          : ''
      }</td>
    </tr>`,
  );
  return html`<section class="panel" id="grants">
    <h2>Grants</h2>
    <p class="hint">A grant lets one identity, of any owner, read this version under context {"scope":"OWN"} until you revoke it; a revoke takes effect on its next read.</p>
    ${
      rows.length
        ? html`<table><thead><tr><th>Identity</th><th>State</th><th>Granted</th><th>Revoked</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
        : html`<p class="empty">Not granted to anyone.</p>`
    }
    ${v.grants.next_cursor ? html`<p class="actions"><a class="button secondary" href="/console/skills/versions/${id}?grants_cursor=${encodeURIComponent(v.grants.next_cursor)}#grants">Older grants</a></p>` : ''}
    <form method="post" action="/console/skills/versions/${id}/grants">
      ${csrfField(v.csrf)}
      <label for="grantee_id">Identity id</label>
      <input id="grantee_id" name="grantee_id" type="text" required maxlength="80" placeholder="agt_…">
      <label for="grant_note">Note (optional)</label>
      <input id="grant_note" name="note" type="text" maxlength="${SKILL_LIMITS.package.noteChars}">
      <p class="actions"><button type="submit">Grant</button></p>
    </form>
  </section>`;
}

function blockPanel(v: VersionPageView): SafeHtml {
  const id = v.version.version_id;
  if (v.version.status === 'BLOCKED') {
    const blocked = v.activity.events.find((e) => e.kind === 'BLOCKED');
    const reason = typeof blocked?.detail.reason === 'string' ? blocked.detail.reason : null;
    const by = blocked?.detail.by === 'OPERATOR' ? 'the operator' : 'you';
    return html`<section class="panel" id="block">
      <h2>Status</h2>
      <p>${statusBadge('BLOCKED')} Delivered to no one but you and its author${blocked ? html`; blocked by ${by} ${time(blocked.at)}` : ''}.</p>
      ${reason ? html`<p class="hint">Reason: ${reason}</p>` : ''}
      <form method="post" action="/console/skills/versions/${id}/unblock">${csrfField(v.csrf)}
        <p class="actions"><button class="secondary" type="submit">Unblock</button></p></form>
      <p class="hint">A block by the operator is lifted only by the operator.</p>
    </section>`;
  }
  return html`<section class="panel" id="block">
    <h2>Status</h2>
    <p>${statusBadge('AVAILABLE')} Delivered wherever a context gives it.</p>
    <form method="post" action="/console/skills/versions/${id}/block">${csrfField(v.csrf)}
      <label for="block_reason">Reason for blocking</label>
      <input id="block_reason" name="reason" type="text" required maxlength="${SKILL_LIMITS.package.noteChars}">
      <p class="actions"><button class="danger" type="submit">Block</button></p></form>
    <p class="hint">Blocked, it is delivered to no one but you and its author; grants, library entries and attachments stay but deliver nothing until you unblock it.</p>
  </section>`;
}

function lifecyclePanel(v: VersionPageView): SafeHtml {
  const id = v.version.version_id;
  const h = v.history;
  const archived = h.lifecycle_status === 'ARCHIVED';
  const others = h.versions.map(
    (o) =>
      html`<li>${o.current ? html`<strong>version ${o.number}</strong> (this one)` : html`<a href="/console/skills/versions/${o.version_id}">version ${o.number}</a>`} · ${o.status}${o.bytes_deleted ? ' · bytes deleted' : ''} · ${time(o.published_at)}</li>`,
  );
  const form = archived
    ? html`<form method="post" action="/console/skills/versions/${id}/unarchive">${csrfField(v.csrf)}
        <p class="actions"><button class="secondary" type="submit">Unarchive</button></p></form>`
    : html`<form method="post" action="/console/skills/versions/${id}/archive">${csrfField(v.csrf)}
        <label for="archive_reason">Reason (optional)</label>
        <input id="archive_reason" name="reason" type="text" maxlength="${SKILL_LIMITS.package.noteChars}">
        <p class="actions"><button class="secondary" type="submit">Archive</button></p></form>`;
  return html`<section class="panel" id="lifecycle">
    <h2>Skill ${h.name}</h2>
    <p>${statusBadge(h.lifecycle_status)}${archived ? html` since ${time(h.archived_at)}` : ''} ${
      archived
        ? 'Its versions stay delivered where they already are, but are not newly granted, proposed, attached or published from.'
        : 'Its versions may be granted, proposed, attached and published from.'
    }</p>
    ${form}
    <h3>Versions of this skill</h3>
    <ul>${others}</ul>
  </section>`;
}

function deletePanel(v: VersionPageView): SafeHtml {
  const id = v.version.version_id;
  if (v.version.bytes_deleted) {
    return html`<section class="panel danger" id="delete-bytes">
      <h2>Privacy byte deletion</h2>
      <p>The file bytes of this version were deleted. Paths, sizes, hashes and history remain; reads answer SKILL_BYTES_DELETED.</p>
    </section>`;
  }
  return html`<section class="panel danger" id="delete-bytes">
    <h2>Privacy byte deletion</h2>
    <p class="hint">Removes every file’s bytes of this version for good. Paths, sizes, SHA-256s, the package hash and all history stay; every read then answers SKILL_BYTES_DELETED. It cannot be undone.</p>
    <form method="post" action="/console/skills/versions/${id}/delete-bytes">${csrfField(v.csrf)}
      <label for="delete_reason">Reason (optional)</label>
      <input id="delete_reason" name="reason" type="text" maxlength="${SKILL_LIMITS.package.noteChars}">
      <label class="check"><input type="checkbox" name="confirm" value="yes" required> Delete the file bytes of this version for good</label>
      <p class="actions"><button class="danger" type="submit">Delete bytes</button></p></form>
  </section>`;
}

const ACTOR: Record<string, string> = {
  OWNER: 'you',
  OPERATOR: 'the operator',
  ANOTHER_OWNER: 'another owner',
  SYSTEM: 'the service',
};

function activityPanel(v: VersionPageView): SafeHtml {
  const rows = v.activity.events.map((e) => {
    const a = e.actor as { type: string; agent_id?: string };
    const reason = typeof e.detail.reason === 'string' ? e.detail.reason : '';
    return html`<tr><td>${e.kind}${reason ? html`<p class="hint">${reason}</p>` : ''}</td>
      <td>${a.agent_id ? html`<code>${a.agent_id}</code>` : (ACTOR[a.type] ?? a.type)}</td><td>${time(e.at)}</td></tr>`;
  });
  return html`<section class="panel" id="activity">
    <h2>Recent activity</h2>
    ${rows.length ? html`<table><thead><tr><th>What</th><th>Who</th><th>When</th></tr></thead><tbody>${rows}</tbody></table>` : html`<p class="empty">Nothing yet.</p>`}
  </section>`;
}

export function versionPage(v: VersionPageView): SafeHtml {
  const s = v.version;
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: `${s.name} · version ${s.number}`,
    current: 'skills',
    body: html`<p class="hint"><a href="/console/skills">← All skills</a></p>
      <h1>${s.name} · version ${s.number}</h1>
      <p class="sub"><code>${s.version_id}</code> · ${statusBadge(s.status)} · skill ${statusBadge(v.history.lifecycle_status)}${s.bytes_deleted ? html` · <span class="badge off">BYTES DELETED</span>` : ''}</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      ${terms(s)}
      ${files(s, v.skillMd)}
      ${grants(v)}
      ${blockPanel(v)}
      ${lifecyclePanel(v)}
      ${deletePanel(v)}
      ${activityPanel(v)}`,
  });
}
