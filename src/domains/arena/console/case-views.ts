import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import type { Signed } from '../../../web/console/views.ts';
import type { ArenaReviewService } from '../cases/review.ts';

/**
 * The Arena reviewers' page (docs/arena.md, "Reports and appeals"): the open cases, oldest
 * first, each with the form to decide it; an appeal of the reviewer's own decision says another
 * reviewer decides it instead. An owner who is not a reviewer sees only that the page is theirs.
 */

export type CaseQueue = Awaited<ReturnType<ArenaReviewService['queue']>>;
type OpenCase = CaseQueue['cases'][number];

export interface CasesPageView extends Signed {
  queue: CaseQueue;
  /** The case id the page starts after (a link back to the oldest). */
  after: string | undefined;
  flash?: string | undefined;
  error?: string | undefined;
  /** What was typed into one case's form, shown again with a refusal. */
  typed?: { caseId: string; outcome: string; reasons: string } | undefined;
}

export function casesPage(v: CasesPageView): SafeHtml {
  const { cases, next_after } = v.queue;
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: 'Arena cases',
    body: html`<h1>Arena cases</h1>
      <p class="sub">Open reports and appeals, oldest first. The filer reads your outcome and reasons and may appeal once; another reviewer decides an appeal.</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      ${cases.length ? cases.map((c) => casePanel(v, c)) : html`<p class="empty">No open cases.</p>`}
      <p class="actions">${v.after ? html`<a class="button secondary" href="/console/arena/cases">Oldest open cases</a>` : ''}${
        next_after
          ? html`<a class="button secondary" href="/console/arena/cases?after=${next_after}">More cases</a>`
          : ''
      }</p>`,
  });
}

function casePanel(v: CasesPageView, c: OpenCase): SafeHtml {
  const typed = v.typed?.caseId === c.case_id ? v.typed : undefined;
  const outcome = typed?.outcome ?? '';
  return html`<section class="panel" id="case-${c.case_id}">
    <h2>${c.kind === 'APPEAL' ? 'Appeal' : 'Report'} <code>${c.case_id}</code></h2>
    <dl class="facts">
      <dt>Kind</dt><dd>${c.kind}</dd>
      ${c.appeal_of ? html`<dt>Appeals</dt><dd>the decision <code>${c.appeal_of}</code></dd>` : ''}
      <dt>Subject</dt><dd>${c.subject_type}</dd>
      <dt>Run</dt><dd><code>${c.run_id}</code></dd>
      <dt>Challenge</dt><dd>${c.challenge_id} version ${String(c.challenge_version)}</dd>
      <dt>Filed by</dt><dd><code>${c.filer_agent_id}</code></dd>
      <dt>Filed at</dt><dd>${time(c.created_at)}</dd>
      <dt>Evidence</dt><dd>${
        c.evidence_ids.length
          ? c.evidence_ids.map((id, i) => html`${i ? ', ' : ''}<code>${id}</code>`)
          : html`<span class="hint">none</span>`
      }</dd>
    </dl>
    <p class="statement">${c.statement}</p>
    ${
      c.you_may_decide
        ? html`<form method="post" action="/console/arena/cases/${c.case_id}/decision">
      ${csrfField(v.csrf)}
      <label for="outcome-${c.case_id}">Outcome</label>
      <select id="outcome-${c.case_id}" name="outcome" required>
        <option value=""${outcome ? '' : html` selected`}>Choose…</option>
        <option value="UPHELD"${outcome === 'UPHELD' ? html` selected` : ''}>UPHELD</option>
        <option value="DISMISSED"${outcome === 'DISMISSED' ? html` selected` : ''}>DISMISSED</option>
      </select>
      <label for="reasons-${c.case_id}">Reasons (the filer reads them)</label>
      <textarea id="reasons-${c.case_id}" name="reasons" rows="4" maxlength="8000" required>${typed?.reasons ?? ''}</textarea>
      <p class="actions"><button type="submit">Decide</button></p>
    </form>`
        : notice('info', 'You decided the case this appeal is against: another reviewer decides this.')
    }
  </section>`;
}
