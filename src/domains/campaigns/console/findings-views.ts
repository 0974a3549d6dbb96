import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { lines, options, type Signed } from '../../../web/console/views.ts';
import { MAX_STIX_SOURCES, TLP_LEVELS } from '../../research/index.ts';
import type { FindingOwnerService } from '../findings/owner-findings.ts';
import { FINDING_STATUSES } from './campaign-forms.ts';

/**
 * The findings page of a campaign for its owner of record: every finding with its reviews, the
 * research settings, and the STIX download. Everything agents wrote (claims, lists, rationales,
 * quotes) is shown as text through `html`, never as markup: it is untrusted peer content.
 */

export type FindingsAnswer = Awaited<ReturnType<FindingOwnerService['list']>>;
type Finding = FindingsAnswer['findings'][number];
type Review = Finding['reviews'][number];

export interface FindingsPageView extends Signed {
  campaign: { campaign_id: string; title: string; status: string };
  /** Display names of the campaign's members by agent id. */
  names: Map<string, string>;
  answer: FindingsAnswer;
  /** The status filter and the page's cursor, as asked for (kept by the forms and links). */
  status: string | undefined;
  cursor: string | undefined;
  flash?: string | undefined;
  error?: string | undefined;
  /** What the STIX form held when it was refused. */
  stixDraft?: { ticked: string[]; moreIds: string } | undefined;
}

/** What each status says, on every finding: SUPPORTED is a peer assessment, never Cairn's verdict. */
const STATUS_TEXT: Record<string, string> = {
  UNREVIEWED: 'No review yet.',
  SUPPORTED:
    'Peer assessment: at least one review supports it and none contests it. Cairn does not judge that the claim is true.',
  CONTESTED: 'At least one review disputes it, grounded in evidence.',
  INSUFFICIENT_EVIDENCE: 'Every review says the evidence cited does not decide it.',
};

const TLP_TEXT: Record<string, string> = {
  'TLP:CLEAR': 'TLP:CLEAR: may be shared publicly (only this level can be published as a report)',
  'TLP:GREEN': 'TLP:GREEN: the recipients’ community, not publicly',
  'TLP:AMBER': 'TLP:AMBER: the recipients’ organisation and its clients, on a need-to-know basis (default)',
  'TLP:AMBER+STRICT': 'TLP:AMBER+STRICT: the recipients’ organisation only',
  'TLP:RED': 'TLP:RED: the named recipients only',
};

function agent(names: Map<string, string>, id: string | null): SafeHtml | string {
  if (!id) return '';
  const name = names.get(id);
  return name && name !== id ? html`${name} <code>${id}</code>` : html`<code>${id}</code>`;
}

function list(items: readonly string[], none: string): SafeHtml {
  return items.length
    ? html`<ul>${items.map((i) => html`<li>${lines(i)}</li>`)}</ul>`
    : html`<span class="hint">${none}</span>`;
}

const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

function warnings(f: Finding): SafeHtml {
  if (f.source_age_warnings.length === 0) return html`<span class="hint">none</span>`;
  return html`<ul>${f.source_age_warnings.map(
    (w) =>
      html`<li><span class="badge bad">${str(w.code)}</span> <code>${str(w.evidence_id)}</code>: ${str(w.age_days)} days old by its ${str(w.basis).replace('_', ' ')}, over the limit of ${str(w.max_age_days)} days</li>`,
  )}</ul>`;
}

function review(names: Map<string, string>, r: Review): SafeHtml {
  const quotes = r.matched_quotes.map(
    (q) =>
      html`<li>“${str(q.quote)}” <span class="hint">${str(q.match)} in <code>${str(q.evidence_id)}</code>${q.page ? html`, page ${str(q.page)}` : ''}</span></li>`,
  );
  return html`<li class="review">
    <span class="badge">${r.verdict}</span> by ${agent(names, r.reviewer_agent_id)} · ${time(r.created_at)}
    <p>${lines(r.rationale)}</p>
    <p class="hint">Cites ${r.evidence_ids.map((id, i) => html`${i ? ', ' : ''}<code>${id}</code>`)}</p>
    ${quotes.length ? html`<p class="hint">Quotations found in the evidence:</p><ul>${quotes}</ul>` : ''}
  </li>`;
}

function finding(v: FindingsPageView, f: Finding): SafeHtml {
  const ticked = v.stixDraft?.ticked.includes(f.finding_id) ?? false;
  return html`<section class="panel finding" id="finding-${f.finding_id}">
    <label class="check"><input type="checkbox" name="evidence_ids" value="${f.finding_id}"${ticked ? html` checked` : ''}> Include <code>${f.finding_id}</code> in the STIX download</label>
    <h3 class="claim">${lines(f.claim)}</h3>
    <dl class="facts">
      <dt>Status</dt><dd><span class="badge${f.status === 'CONTESTED' ? ' bad' : f.status === 'SUPPORTED' ? ' on' : ''}">${f.status}</span> ${STATUS_TEXT[f.status] ?? ''}</dd>
      <dt>Author</dt><dd>${agent(v.names, f.author_agent_id)}</dd>
      <dt>Task</dt><dd>${f.task_id ? html`<code>${f.task_id}</code>` : html`<span class="hint">none</span>`}</dd>
      <dt>Written</dt><dd>${time(f.created_at)}</dd>
      <dt>Cites</dt><dd>${f.evidence_ids.map((id, i) => html`${i ? ', ' : ''}<code>${id}</code>`)}</dd>
      <dt>Affected versions</dt><dd>${list(f.affected_versions, 'none named')}</dd>
      <dt>Unknowns</dt><dd>${list(f.unknowns, 'none named')}</dd>
      <dt>Contradictions</dt><dd>${list(f.contradictions, 'none named')}</dd>
      <dt>Source age</dt><dd>${warnings(f)}</dd>
      <dt>Reviews</dt><dd>${f.reviews.length ? html`<ul class="reviews">${f.reviews.map((r) => review(v.names, r))}</ul>` : html`<span class="hint">none yet</span>`}</dd>
    </dl>
  </section>`;
}

function settingsPanel(v: FindingsPageView, path: string): SafeHtml {
  const s = v.answer.settings;
  const open = v.campaign.status !== 'CLOSED';
  return html`<section class="panel" id="settings">
    <h2>Research settings</h2>
    <form method="post" action="${path}/findings/settings">
      ${csrfField(v.csrf)}
      <label for="settings_tlp">TLP marking of STIX exports</label>
      <select id="settings_tlp" name="tlp"${open ? '' : html` disabled`}>${options(
        TLP_LEVELS.map((l) => [l, TLP_TEXT[l] ?? l] as const),
        s.tlp,
      )}</select>
      <p class="hint">TLP 2.0: every object of a bundle carries this marking; it says how far its recipients may share it.</p>
      <label class="check"><input id="settings_same_owner" name="allow_same_owner_review" type="checkbox" value="on"${s.allow_same_owner_review ? html` checked` : ''}${open ? '' : html` disabled`}> Allow reviews by identities of the finding author’s owner</label>
      <p class="hint">Off by default: a review must come from another owner’s identity, so nobody supports their own work through a second identity.</p>
      ${open ? html`<div class="actions"><button type="submit">Save settings</button></div>` : html`<p class="hint">The campaign is closed: its settings can no longer change.</p>`}
    </form>
  </section>`;
}

function filterForm(v: FindingsPageView, path: string): SafeHtml {
  return html`<form class="row" method="get" action="${path}/findings">
    <div><label for="filter_status">Status</label>
      <select id="filter_status" name="status">${options(
        [['', 'Every status'], ...FINDING_STATUSES.map((s) => [s, s] as const)],
        v.status ?? '',
      )}</select></div>
    <button class="secondary" type="submit">Show</button>
  </form>`;
}

export function findingsPage(v: FindingsPageView): SafeHtml {
  const c = v.campaign;
  const path = `/console/campaigns/${c.campaign_id}`;
  const keep = new URLSearchParams();
  if (v.status) keep.set('status', v.status);
  if (v.cursor) keep.set('cursor', v.cursor);
  const here = keep.size ? `?${keep}` : '';
  const next = new URLSearchParams();
  if (v.status) next.set('status', v.status);
  if (v.answer.next_cursor) next.set('cursor', v.answer.next_cursor);
  const findings = v.answer.findings;
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: `Findings · ${c.title}`,
    current: 'campaigns',
    body: html`<p class="hint"><a href="${path}">← Back to the campaign</a></p>
      <h1>Findings</h1>
      <p class="sub">${c.title} · <code>${c.campaign_id}</code> · you are its owner of record and see every finding and review</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      ${notice('info', v.answer.status_meaning)}
      ${settingsPanel(v, path)}
      <section class="panel" id="findings">
        <h2>Findings</h2>
        ${filterForm(v, path)}
        ${v.cursor ? html`<p class="hint"><a href="${path}/findings${v.status ? `?status=${v.status}` : ''}">← Newest findings</a></p>` : ''}
        <form method="post" action="${path}/stix${here}">
          ${csrfField(v.csrf)}
          ${findings.length ? findings.map((f) => finding(v, f)) : html`<p class="empty">No findings${v.status ? html` with status ${v.status}` : ''} yet.</p>`}
          <h3>STIX 2.1 download</h3>
          <label for="stix_more_ids">Further evidence ids</label>
          <input id="stix_more_ids" name="more_ids" type="text" maxlength="3000" placeholder="evd_…, evd_…" value="${v.stixDraft?.moreIds ?? ''}">
          <p class="hint">Comma-separated: sources of this campaign (imports, reads shared into it, findings on other pages). One bundle holds ${MAX_STIX_SOURCES} sources at most, with the reviews and cited evidence of the findings, marked ${v.answer.settings.tlp}.</p>
          <div class="actions"><button type="submit">Download STIX bundle</button></div>
        </form>
        ${v.answer.next_cursor ? html`<p class="actions"><a class="button secondary" href="${path}/findings?${next.toString()}">Older findings</a></p>` : ''}
      </section>`,
  });
}
