import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { lines, type Signed } from '../../../web/console/views.ts';
import { SKILL_LIMITS } from '../limits.ts';
import type { SkillOwnerService } from '../owner/skills.ts';

/**
 * Skills for their owners (docs/skills.md): the account's versions and drafts with a form to
 * start a draft, and one draft with its files, validation problems, the SKILL.md editor and
 * Publish. Names, descriptions and SKILL.md are authors' words: text through `html`, never markup.
 * The version page is version-views.ts.
 */

export type VersionList = Awaited<ReturnType<SkillOwnerService['list']>>;
export type DraftList = Awaited<ReturnType<SkillOwnerService['listDrafts']>>;
export type DraftRow = DraftList['drafts'][number] & { valid: boolean; problem_count: number };
export type OwnerDraft = Awaited<ReturnType<SkillOwnerService['getDraft']>>;

export interface SkillListView extends Signed {
  /** Null when the deployment has skills off: the page says so and offers nothing else. */
  data: {
    versions: VersionList;
    drafts: { drafts: DraftRow[]; next_cursor: string | null };
    /** The cursors the page was asked with (to link back to the newest). */
    paged: boolean;
  } | null;
  flash?: string | undefined;
  error?: string | undefined;
  values?: Record<string, string> | undefined;
}

export interface DraftPageView extends Signed {
  draft: OwnerDraft;
  /** SKILL.md as stored, or null when the draft has none. */
  skillMd: string | null;
  flash?: string | undefined;
  error?: string | undefined;
  /** What was typed into the editor but not saved (a stale revision), to copy from. */
  unsaved?: string | undefined;
}

/** The first characters of a hash, whole in the title. */
export const shortHash = (sha: string) => html`<code title="${sha}">${sha.slice(0, 12)}</code>`;

/** Who wrote it: an identity of the account (linked), or the owner at the console or API. */
export function authorCell(authorId: string | null): SafeHtml {
  if (!authorId) return html`<span class="hint">you (owner)</span>`;
  return html`<a href="/console/identities/${authorId}"><code>${authorId}</code></a>`;
}

export function statusBadge(status: string): SafeHtml {
  return html`<span class="badge${status === 'AVAILABLE' || status === 'ACTIVE' ? ' on' : status === 'BLOCKED' ? ' bad' : ' off'}">${status}</span>`;
}

const OFF =
  'Skills are turned off on this deployment (CAIRN_SKILLS=off). The operator can turn them on; until then there is nothing to do here, and nothing was deleted.';

export function skillListPage(v: SkillListView): SafeHtml {
  const shell = (body: SafeHtml) =>
    page({ owner: v.owner, csrf: v.csrf, title: 'Skills', current: 'skills', body });
  if (!v.data) return shell(html`<h1>Skills</h1>${notice('info', OFF)}`);
  const { versions, drafts, paged } = v.data;
  const val = v.values ?? {};
  const versionRows = versions.versions.map(
    (s) => html`<tr id="version-${s.version_id}">
      <td><a href="/console/skills/versions/${s.version_id}">${s.name}</a></td>
      <td>${s.number}</td>
      <td>${statusBadge(s.status)}${s.bytes_deleted ? html` <span class="badge off">BYTES DELETED</span>` : ''}</td>
      <td>${statusBadge(s.lifecycle_status ?? 'ACTIVE')}</td>
      <td>${authorCell(s.author_id)}</td>
      <td>${time(s.published_at)}</td>
      <td>${shortHash(s.package_sha256)}</td>
    </tr>`,
  );
  const draftRows = drafts.drafts.map(
    (d) => html`<tr id="draft-${d.draft_id}">
      <td><a href="/console/skills/drafts/${d.draft_id}">${d.name}</a></td>
      <td>${d.revision}</td>
      <td>${d.valid ? html`<span class="badge on">VALID</span>` : html`<span class="badge bad">${d.problem_count} ${d.problem_count === 1 ? 'problem' : 'problems'}</span>`}</td>
      <td>${authorCell(d.author_id)}</td>
      <td>${time(d.updated_at)}</td>
    </tr>`,
  );
  const more = (params: string) =>
    html`<p class="actions"><a class="button secondary" href="/console/skills?${params}">Older</a></p>`;
  return shell(html`<h1>Skills</h1>
    <p class="sub">Agent Skills packages of your account: drafts you and your identities are writing, and the immutable versions published from them. A version is shared only by a grant, a campaign’s library or a task attachment; skill text never grants permissions.</p>
    ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
    ${paged ? html`<p class="hint"><a href="/console/skills">← Newest versions and drafts</a></p>` : ''}
    <section class="panel" id="versions">
      <h2>Versions</h2>
      ${
        versionRows.length
          ? html`<table><thead><tr><th>Name</th><th>Version</th><th>Status</th><th>Lifecycle</th><th>Author</th><th>Published</th><th>Package SHA-256</th></tr></thead>
            <tbody>${versionRows}</tbody></table>`
          : html`<p class="empty">No published versions${paged ? ' older than these' : ' yet'}.</p>`
      }
      ${versions.next_cursor ? more(`versions_cursor=${encodeURIComponent(versions.next_cursor)}`) : ''}
    </section>
    <section class="panel" id="drafts">
      <h2>Drafts</h2>
      ${
        draftRows.length
          ? html`<table><thead><tr><th>Name</th><th>Revision</th><th>Validity</th><th>Author</th><th>Updated</th></tr></thead>
            <tbody>${draftRows}</tbody></table>`
          : html`<p class="empty">No drafts${paged ? ' older than these' : ' yet'}.</p>`
      }
      ${drafts.next_cursor ? more(`drafts_cursor=${encodeURIComponent(drafts.next_cursor)}`) : ''}
    </section>
    <section class="panel" id="new-draft">
      <h2>Start a draft</h2>
      <form method="post" action="/console/skills/drafts">
        ${csrfField(v.csrf)}
        <label for="draft_name">Name</label>
        <input id="draft_name" name="name" type="text" required maxlength="64" pattern="[a-z0-9]+(-[a-z0-9]+)*" value="${val.name ?? ''}">
        <p class="hint">Lowercase letters, digits and single hyphens, up to 64; it is the skill’s name in SKILL.md and cannot change.</p>
        <label for="draft_description">Description</label>
        <textarea id="draft_description" name="description" maxlength="${SKILL_LIMITS.package.descriptionChars}" rows="3">${val.description ?? ''}</textarea>
        <p class="hint">What the skill does and when to use it (up to ${SKILL_LIMITS.package.descriptionChars} characters). A draft without one is not valid yet.</p>
        <p class="actions"><button type="submit">Start draft</button></p>
      </form>
    </section>`);
}

function problemsPanel(d: OwnerDraft, csrf: string): SafeHtml {
  const rows = d.problems.map(
    (p) =>
      html`<tr><td><code>${p.path || '(package)'}</code></td><td><code>${p.rule}</code></td><td>${p.message}</td></tr>`,
  );
  const state = d.valid
    ? html`<p><span class="badge on">VALID</span> A valid Agent Skills package: it can be published.</p>`
    : html`<p><span class="badge bad">${d.problems.length} ${d.problems.length === 1 ? 'problem' : 'problems'}</span> Publishing is refused until every problem is fixed.</p>
      <table><thead><tr><th>Path</th><th>Rule</th><th>Message</th></tr></thead><tbody>${rows}</tbody></table>`;
  return html`<section class="panel" id="validation">
    <h2>Validation</h2>
    ${state}
    <form method="post" action="/console/skills/drafts/${d.draft_id}/publish">
      ${csrfField(csrf)}
      <input type="hidden" name="revision" value="${d.revision}">
      <p class="actions"><button type="submit">Publish</button></p>
      <p class="hint">Publishes revision ${d.revision} as the skill’s next immutable, private version.</p>
    </form>
  </section>`;
}

export function draftPage(v: DraftPageView): SafeHtml {
  const d = v.draft;
  const files = d.files.map(
    (f) => html`<tr><td><code>${f.path}</code></td><td>${f.size}</td><td>${shortHash(f.sha256)}</td></tr>`,
  );
  const unsaved =
    v.unsaved !== undefined
      ? html`<details id="unsaved"><summary>Your unsaved text</summary><pre>\n${v.unsaved}</pre></details>`
      : '';
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: `Draft · ${d.name}`,
    current: 'skills',
    body: html`<p class="hint"><a href="/console/skills">← All skills</a></p>
      <h1>Draft · ${d.name}</h1>
      <p class="sub"><code>${d.draft_id}</code> · revision ${d.revision} · by ${authorCell(d.author_id)} · updated ${time(d.updated_at)}</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      ${d.description ? html`<p>${lines(d.description)}</p>` : ''}
      ${problemsPanel(d, v.csrf)}
      <section class="panel" id="files">
        <h2>Files</h2>
        ${
          files.length
            ? html`<table><thead><tr><th>Path</th><th>Bytes</th><th>SHA-256</th></tr></thead><tbody>${files}</tbody></table>`
            : html`<p class="empty">No files.</p>`
        }
        <p class="hint">Other files (scripts/, references/, assets/) are added through the skill tools or the owner API, or imported as a zip.</p>
      </section>
      <section class="panel" id="skill-md">
        <h2>SKILL.md</h2>
        <form method="post" action="/console/skills/drafts/${d.draft_id}/skill-md">
          ${csrfField(v.csrf)}
          <input type="hidden" name="revision" value="${d.revision}">
          <label for="skill_md">SKILL.md</label>
          <textarea id="skill_md" name="content" rows="20" spellcheck="false">\n${v.skillMd ?? ''}</textarea>
          <p class="hint">The frontmatter (between the --- lines) holds name (${d.name}), description and the optional license, compatibility, metadata and allowed-tools; the instructions follow it. Saved against revision ${d.revision}: if it changed meanwhile, nothing is saved.</p>
          <p class="actions"><button type="submit">Save SKILL.md</button></p>
        </form>
        ${unsaved}
      </section>`,
  });
}
