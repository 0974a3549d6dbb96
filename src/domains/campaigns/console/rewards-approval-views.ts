import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { lines, type Signed } from '../../../web/console/views.ts';
import type { RewardOwnerService } from '../rewards/owner-rewards.ts';
import { shown } from './rewards-views.ts';

/**
 * One release request for the campaign owner to decide: the task, the worker's result with the
 * quotations Cairn found and did not find, the evidence, and the two decisions while it is
 * pending. Everything the worker wrote (summary, quotes) is shown as text through `html`, never
 * as markup: it is untrusted peer content.
 */

export type Approval = Awaited<ReturnType<RewardOwnerService['approval']>>;

/** One piece of cited evidence as the owner may see it; null when the owner may not. */
export interface CitedEvidence {
  id: string;
  record: { title: string | null; canonicalUrl: string } | null;
}

export interface ApprovalPageView extends Signed {
  approval: Approval;
  evidence: CitedEvidence[];
  flash?: string | undefined;
  error?: string | undefined;
  /** The rework reason typed before a refusal, to fill the form in again. */
  reason?: string | undefined;
}

const STATUS_TEXT: Record<string, string> = {
  PENDING: 'Waiting for your decision. Nothing is paid until you approve.',
  APPROVED: 'Approved: the reward moved from escrow to the balance of the worker’s owner.',
  RETURNED: 'Returned for rework: the reward stayed in escrow and the task reopened.',
  CANCELLED: 'Cancelled with its task: the escrow went back to your balance.',
};

/** Quote lists are stored JSON of the verification; read only what has the expected shape. */
type Loose = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
const rows = (v: unknown): Loose[] =>
  Array.isArray(v) ? v.filter((x): x is Loose => typeof x === 'object' && x !== null) : [];

function matched(quotes: Loose[]): SafeHtml {
  if (quotes.length === 0) return html`<p class="hint">None.</p>`;
  return html`<ul class="quotes" id="matched-quotes">${quotes.map(
    (q) =>
      html`<li>“${str(q.quote)}” <span class="hint">${str(q.match) || 'found'} in <code>${str(q.evidence_id)}</code>${q.page ? html`, page ${str(q.page)}` : ''}</span></li>`,
  )}</ul>`;
}

function unmatched(quotes: Loose[], none: string, id: string): SafeHtml {
  if (quotes.length === 0) return html`<p class="hint">${none}</p>`;
  return html`<ul class="quotes" id="${id}">${quotes.map(
    (q) => html`<li>“${str(q.quote)}” <span class="hint">${str(q.reason)}</span></li>`,
  )}</ul>`;
}

function evidenceList(items: CitedEvidence[]): SafeHtml {
  if (items.length === 0) return html`<p class="hint">None attached.</p>`;
  return html`<ul id="evidence">${items.map((e) =>
    e.record
      ? html`<li><a href="/console/research/evidence/${e.id}">${e.record.title ?? e.id}</a> <code>${e.id}</code><p class="hint">${e.record.canonicalUrl}</p></li>`
      : html`<li><code>${e.id}</code> <span class="hint">not visible to you (not shared into your campaign)</span></li>`,
  )}</ul>`;
}

function resultPanel(a: Approval, evidence: CitedEvidence[]): SafeHtml {
  const s = a.submission;
  if (!s)
    return html`<section class="panel" id="result"><h2>The result</h2><p class="hint">The submission is not on record.</p></section>`;
  const paid = (s.paid_quotes ?? null) as Loose | null;
  const paidUnmatched = rows(paid?.unmatched);
  return html`<section class="panel" id="result">
    <h2>The result</h2>
    <dl class="facts">
      <dt>Worker</dt><dd><code>${s.agent_id}</code></dd>
      <dt>Outcome claimed</dt><dd>${s.claimed_outcome}</dd>
      <dt>Checks</dt><dd><span class="badge${s.verified_status === 'VERIFIED' ? ' on' : ' bad'}">${s.verified_status}</span> <span class="hint">the configured checks passed; not a claim that the conclusion is true</span></dd>
      <dt>Submitted</dt><dd>${time(s.created_at)}</dd>
      <dt>Summary</dt><dd class="summary">${lines(s.summary)}</dd>
    </dl>
    <h3>Quotations found in the evidence</h3>
    ${matched(rows(s.matched_quotes))}
    <h3>Quotations not found</h3>
    ${unmatched(rows(s.unmatched_quotes), 'None: every quotation was found.', 'unmatched-quotes')}
    ${
      paidUnmatched.length
        ? html`<h3>Quotations not found in the worker’s own reads</h3>
          <p class="hint">${str(paid?.rule)}</p>
          ${unmatched(paidUnmatched, '', 'paid-unmatched-quotes')}`
        : ''
    }
    <h3>Evidence</h3>
    ${evidenceList(evidence)}
  </section>`;
}

function decisionPanel(v: ApprovalPageView, path: string): SafeHtml {
  const a = v.approval;
  if (a.status !== 'PENDING') {
    return html`<section class="panel" id="decision">
      <h2>Decision</h2>
      <p><span class="badge" id="approval-status">${a.status}</span> ${STATUS_TEXT[a.status] ?? ''}</p>
      <p class="hint">Decided ${time(a.decided_at, 'at an unknown time')}</p>
      ${a.reason ? html`<p>Reason given: ${lines(a.reason)}</p>` : ''}
    </section>`;
  }
  return html`<section class="panel" id="decision">
    <h2>Decide</h2>
    <p class="hint">Approving moves ${shown(a.reward)} from escrow to the balance of the worker’s owner, once. Returning sends the task back for rework: the reward stays in escrow and the worker can try again.</p>
    <form method="post" action="${path}/decision">
      ${csrfField(v.csrf)}
      <input type="hidden" name="action" value="approve">
      <div class="actions"><button type="submit">Approve</button></div>
    </form>
    <form method="post" action="${path}/decision">
      ${csrfField(v.csrf)}
      <input type="hidden" name="action" value="return">
      <label for="return_reason">Reason for rework</label>
      <textarea id="return_reason" name="reason" required maxlength="2000" rows="3">${v.reason ?? ''}</textarea>
      <p class="hint">The worker reads it: say what is missing or wrong.</p>
      <div class="actions"><button class="secondary" type="submit">Return for rework</button></div>
    </form>
  </section>`;
}

export function approvalPage(v: ApprovalPageView): SafeHtml {
  const a = v.approval;
  const t = a.task;
  const path = `/console/rewards/approvals/${a.approval_id}`;
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: `Release request · ${t.title}`,
    current: 'rewards',
    body: html`<p class="hint"><a href="/console/rewards">← Rewards</a></p>
      <h1>Release request <span class="badge${a.status === 'APPROVED' ? ' on' : ''}">${a.status}</span></h1>
      <p class="sub"><code>${a.approval_id}</code> · <a href="/console/campaigns/${a.campaign_id}">${a.campaign_title}</a> · asked ${time(a.requested_at)} by <code>${a.requested_by}</code></p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      <section class="panel" id="task">
        <h2>The task</h2>
        <dl class="facts">
          <dt>Title</dt><dd>${t.title} <code>${t.task_id}</code></dd>
          <dt>Objective</dt><dd>${lines(t.objective)}</dd>
          <dt>Acceptance</dt><dd>${lines(t.acceptance)}</dd>
          <dt>Reward</dt><dd>${shown(a.reward)}</dd>
          <dt>Task status</dt><dd>${t.status}${t.rework_count ? html` <span class="hint">returned for rework ${t.rework_count} time${t.rework_count === 1 ? '' : 's'}</span>` : ''}</dd>
        </dl>
      </section>
      ${resultPanel(a, v.evidence)}
      ${decisionPanel(v, path)}`,
  });
}
