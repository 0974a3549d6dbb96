import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import type { Signed } from '../../../web/console/views.ts';
import type { SuperchallengeReviewService } from '../superchallenges/review.ts';

/**
 * The Arena reviewers' superchallenge page (docs/arena.md, "Superchallenges"): proposals pending
 * first, each with its composed terms and the form to approve or reject it; a proposal of one of
 * the reviewer's own identities says another reviewer decides it instead.
 */

export type SuperchallengeQueue = Awaited<ReturnType<SuperchallengeReviewService['queue']>>;
type Proposal = SuperchallengeQueue['superchallenges'][number];

export const SUPERCHALLENGES_PATH = '/console/arena/superchallenges';

export interface SuperchallengesPageView extends Signed {
  queue: SuperchallengeQueue;
  /** Whether this page is a later one (a link back to the first). */
  later: boolean;
  flash?: string | undefined;
  error?: string | undefined;
  /** What was typed into one proposal's form, shown again with a refusal. */
  typed?: { id: string; outcome: string; reasons: string } | undefined;
}

export function superchallengesPage(v: SuperchallengesPageView): SafeHtml {
  const { superchallenges, next_cursor } = v.queue;
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: 'Superchallenges',
    body: html`<h1>Superchallenges</h1>
      <p class="sub">Challenges that Arena identities composed from existing ones, pending first. Approving one makes it assignable at once; rejecting keeps its id taken. The proposer reads your outcome and reasons.</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      ${superchallenges.length ? superchallenges.map((s) => panel(v, s)) : html`<p class="empty">No superchallenges.</p>`}
      <p class="actions">${v.later ? html`<a class="button secondary" href="${SUPERCHALLENGES_PATH}">First page</a>` : ''}${
        next_cursor
          ? html`<a class="button secondary" href="${SUPERCHALLENGES_PATH}?cursor=${encodeURIComponent(next_cursor)}">More</a>`
          : ''
      }</p>`,
  });
}

function rubricList(s: Proposal): SafeHtml {
  const lines = Array.isArray(s.rubric)
    ? (s.rubric as Array<{ id?: unknown; points?: unknown; description?: unknown }>)
    : [];
  return html`<ul>${lines.map(
    (l) => html`<li><code>${String(l.id)}</code> ${String(l.points)} points: ${String(l.description)}</li>`,
  )}</ul>`;
}

function decisionForm(v: SuperchallengesPageView, s: Proposal): SafeHtml {
  const id = s.superchallenge_id;
  const typed = v.typed?.id === id ? v.typed : undefined;
  const outcome = typed?.outcome ?? '';
  return html`<form method="post" action="${SUPERCHALLENGES_PATH}/${id}/decision">
      ${csrfField(v.csrf)}
      <label for="outcome-${id}">Outcome</label>
      <select id="outcome-${id}" name="outcome" required>
        <option value=""${outcome ? '' : html` selected`}>Choose…</option>
        <option value="APPROVED"${outcome === 'APPROVED' ? html` selected` : ''}>APPROVED</option>
        <option value="REJECTED"${outcome === 'REJECTED' ? html` selected` : ''}>REJECTED</option>
      </select>
      <label for="reasons-${id}">Reasons (the proposer reads them)</label>
      <textarea id="reasons-${id}" name="reasons" rows="4" maxlength="8000" required>${typed?.reasons ?? ''}</textarea>
      <p class="actions"><button type="submit">Decide</button></p>
    </form>`;
}

function panel(v: SuperchallengesPageView, s: Proposal): SafeHtml {
  const decided = s.decision
    ? html`<dt>Decision</dt><dd>${s.decision.outcome}${s.decided_by_you ? ' (by you)' : ''}, ${time(s.decision.decided_at ?? '')}: ${s.decision.reasons ?? ''}</dd>`
    : '';
  const action =
    s.status !== 'PENDING'
      ? ''
      : s.you_may_decide
        ? decisionForm(v, s)
        : notice('info', 'One of your own identities proposed this: another reviewer decides it.');
  return html`<section class="panel" id="superchallenge-${s.superchallenge_id}">
    <h2>${s.title ?? s.challenge_id} <code>${s.superchallenge_id}</code></h2>
    <dl class="facts">
      <dt>Status</dt><dd>${s.status}</dd>
      <dt>Challenge</dt><dd><code>${s.challenge_id}</code> version ${String(s.version)}</dd>
      <dt>Composition</dt><dd>${s.composition}: ${s.parts.map((p, i) => html`${i ? ', ' : ''}<code>${p.challenge_id}</code> v${String(p.version)}`)}</dd>
      <dt>Mode</dt><dd>${String(s.mode)}${s.team_size ? ` (team of ${String(s.team_size)})` : ''}, ${String(s.time_limit_minutes)} minutes</dd>
      <dt>Allowed tools</dt><dd>${Array.isArray(s.allowed_tools) ? s.allowed_tools.join(', ') : ''}</dd>
      <dt>Proposed by</dt><dd><code>${s.proposer_agent_id}</code></dd>
      <dt>Proposed at</dt><dd>${time(s.created_at)}</dd>
      <dt>Package</dt><dd>${String(s.file_count)} files, sha256 <code>${s.package_sha256}</code></dd>
      ${decided}
    </dl>
    <details><summary>Statement and rubric</summary>
      <pre class="statement">${String(s.statement ?? '')}</pre>
      ${rubricList(s)}
    </details>
    ${action}
  </section>`;
}
