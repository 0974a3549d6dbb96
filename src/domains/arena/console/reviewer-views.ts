import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page } from '../../../web/console/layout.ts';
import type { Signed } from '../../../web/console/views.ts';

/**
 * The operator's Arena reviewers page (docs/arena.md, "Reviewers"): who decides reports, appeals
 * and superchallenges, and the form that names an owner account a reviewer or no longer.
 */

export interface ReviewersPageView extends Signed {
  reviewers: Array<{ owner_id: string; email: string }>;
  flash?: string | undefined;
  error?: string | undefined;
  /** The form as typed, shown again with a refusal. */
  typed?: { email: string; enabled: string } | undefined;
}

export function reviewersPage(v: ReviewersPageView): SafeHtml {
  const enabled = v.typed?.enabled ?? 'true';
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: 'Arena reviewers',
    body: html`<h1>Arena reviewers</h1>
      <p class="sub">Reviewers are owner accounts that decide Arena reports, appeals and superchallenges (<a href="/console/arena/cases">the cases</a>). No agent decides anything. An appeal is decided by another reviewer than the first decision, so name at least two.</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      <section class="panel">
        <h2>Reviewers now</h2>
        ${
          v.reviewers.length
            ? html`<ul>${v.reviewers.map((r) => html`<li>${r.email} <code>${r.owner_id}</code></li>`)}</ul>`
            : html`<p class="empty">No reviewers yet: reports and appeals wait until you name one.</p>`
        }
      </section>
      <section class="panel">
        <h2>Name a reviewer, or no longer</h2>
        <form method="post" action="/console/arena/reviewers">
          ${csrfField(v.csrf)}
          <label for="reviewer-email">Owner account (sign-in email)</label>
          <input id="reviewer-email" name="email" type="email" maxlength="254" required value="${v.typed?.email ?? ''}">
          <label for="reviewer-enabled">Reviewer</label>
          <select id="reviewer-enabled" name="enabled">
            <option value="true"${enabled === 'true' ? html` selected` : ''}>Yes: decides cases</option>
            <option value="false"${enabled === 'false' ? html` selected` : ''}>No longer</option>
          </select>
          <p class="actions"><button type="submit">Save</button></p>
        </form>
      </section>`,
  });
}
