import { IMPORT_LIMITS } from '../../../parsing/index.ts';
import { html, type SafeHtml } from '../../../web/console/html.ts';
import { notice, page, time } from '../../../web/console/layout.ts';
import { options } from '../../../web/console/views.ts';
import type { ConsoleOwner } from '../../identity/index.ts';
import {
  IMPORT_AUTHENTICITY,
  IMPORT_FORMATS,
  type ImportFormat,
  READING_LIMITS,
} from '../../reading/index.ts';

/** The research pages of the console: importing a file, and reading an import back a page at a time. */

const FORMAT_LABELS: Record<ImportFormat, string> = {
  pdf: 'PDF',
  png: 'PNG image',
  jpeg: 'JPEG image',
  text: 'Text',
  html: 'HTML page',
  snapshot: 'Browser snapshot (HTML or MHTML)',
  log: 'Log',
  cyclonedx: 'CycloneDX JSON SBOM',
  spdx: 'SPDX JSON SBOM',
};

const MIB = 1024 * 1024;

export interface ImportPageView {
  owner: ConsoleOwner;
  csrf: string;
  /** The owner's active campaigns a file may go into. */
  campaigns: Array<{ campaign_id: string; title: string }>;
  campaignId: string | undefined;
  /** The chosen campaign's tasks (the first page) and where the script continues. */
  tasks: Array<{ task_id: string; title: string; status: string }>;
  nextTasks: string | null;
}

/**
 * The import form. It is sent by `/console/import.js` as JSON to `POST /v1/research/imports`:
 * a browser sends a file without a script only as multipart/form-data, which this server does
 * not take, so without JavaScript the page says so and points to the API.
 */
export function importPage(v: ImportPageView): SafeHtml {
  const L = IMPORT_LIMITS;
  const campaigns = v.campaigns.map((c) => [c.campaign_id, `${c.title} · ${c.campaign_id}`] as const);
  const tasks = v.tasks.map((t) => [t.task_id, `${t.title} (${t.status}) · ${t.task_id}`] as const);
  const back = v.campaignId ? `/console/campaigns/${v.campaignId}` : '/console/campaigns';
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: 'Import a file',
    current: 'campaigns',
    body: html`<p class="hint"><a href="${back}">← Back</a></p>
      <h1>Import a file</h1>
      <p class="sub">It becomes evidence with provenance OWNER_IMPORT, labelled UNVERIFIED: Cairn keeps the exact bytes and does not check where they came from.</p>
      <p id="import-needs-js" class="notice info" role="status">Importing from this page needs JavaScript: without it a browser can send a file only as multipart/form-data, which Cairn does not accept. Scripts can import with <code>POST /v1/research/imports</code> and an <a href="/console/tokens">owner API token</a>.</p>
      <section class="panel">
        <form id="import-form" data-endpoint="/v1/research/imports" data-max-bytes="${L.fileBytes}">
          <label for="import_file">File</label>
          <input id="import_file" name="file" type="file" required>
          <p class="hint">Up to ${L.fileBytes / MIB} MiB: a PDF of up to ${L.pdfPages} pages, a PNG or JPEG image, text, HTML or a browser snapshot, a log of up to ${L.logLines.toLocaleString('en')} lines, or a CycloneDX (1.4-1.6) or SPDX (2.x) JSON SBOM.</p>
          <label for="import_format">Format</label>
          <select id="import_format" name="format">${options(
            [['', 'Infer from the file'], ...IMPORT_FORMATS.map((f) => [f, FORMAT_LABELS[f]] as const)],
            '',
          )}</select>
          <label for="import_title">Title</label>
          <input id="import_title" name="title" type="text" maxlength="500">
          <div class="row">
            <div><label for="import_source_date">Source date</label>
              <input id="import_source_date" name="source_date" type="date"></div>
            <div><label for="import_source_url">Source URL</label>
              <input id="import_source_url" name="source_url" type="url" maxlength="${READING_LIMITS.read.urlChars}" placeholder="https://"></div>
          </div>
          <p class="hint">When and where the source itself was published; kept as given, never fetched.</p>
          <label class="check"><input id="import_authorized" name="authorized" type="checkbox" value="on"> I had the right to obtain and share this file</label>
          <p class="hint">Unticked, it is recorded as not stated.</p>
          <label class="check"><input id="import_ocr" name="ocr" type="checkbox" value="on"> Recognise text in images and in PDF pages without text (OCR)</label>
          <div class="row">
            <div><label for="import_campaign">Campaign</label>
              <select id="import_campaign" name="campaign_id" data-choices="/v1/research/campaigns/">${options(
                [['', 'No campaign: only you see it'], ...campaigns],
                v.campaignId ?? '',
              )}</select></div>
            <div><label for="import_task">Task</label>
              <select id="import_task" name="task_id"${v.nextTasks ? html` data-next-cursor="${v.nextTasks}"` : ''}>${options(
                [['', 'No task'], ...tasks],
                '',
              )}</select></div>
          </div>
          <p class="hint">In a campaign, members see it as its visibility mode allows, and the ledger records EVIDENCE_IMPORTED.</p>
          <div class="actions"><button id="import_submit" type="submit" disabled>Import</button></div>
        </form>
      </section>
      <section class="panel" id="import-result" aria-live="polite" hidden></section>
      <script type="module" src="/console/import.js"></script>`,
  });
}

export interface PreviewView {
  owner: ConsoleOwner;
  csrf: string;
  preview: {
    evidence_id: string;
    page: number;
    page_count: number;
    text: string;
    truncated: boolean;
    title: string | null;
    trust_label: string;
    provenance: string;
    flags: string[];
    citation: { canonical_url: string; retrieved_at: string; body_hash: string };
  };
}

/** One page of an import's text, shown as text (never markup), with the way to the next page and the bytes. */
export function previewPage(v: PreviewView): SafeHtml {
  const p = v.preview;
  const base = `/console/research/evidence/${p.evidence_id}`;
  const source = p.citation.canonical_url.startsWith('urn:') ? null : p.citation.canonical_url;
  const unverified = p.provenance === 'OWNER_IMPORT' || p.provenance === 'AGENT_SUBMITTED';
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: p.title ?? p.evidence_id,
    current: 'campaigns',
    body: html`<p class="hint"><a href="/console/research/import">← Import another file</a></p>
      <h1>${p.title ?? p.evidence_id}</h1>
      <p class="sub"><code>${p.evidence_id}</code> · page ${p.page} of ${p.page_count}</p>
      ${unverified ? notice('info', IMPORT_AUTHENTICITY) : ''}
      <section class="panel">
        <dl class="facts">
          <dt>Provenance</dt><dd>${p.provenance}</dd>
          <dt>Trust label</dt><dd>${p.trust_label}</dd>
          <dt>Source</dt><dd>${source ?? html`<span class="hint">none given</span>`}</dd>
          <dt>Stored</dt><dd>${time(p.citation.retrieved_at)}</dd>
          <dt>Body hash</dt><dd><code>${p.citation.body_hash}</code></dd>
          <dt>Flags</dt><dd>${p.flags.length ? p.flags.join(', ') : html`<span class="hint">none</span>`}</dd>
        </dl>
        <p class="actions"><a class="button secondary" href="/v1/research/evidence/${p.evidence_id}/original">Download the original</a></p>
      </section>
      <section class="panel" id="preview">
        <h2>Page ${p.page}</h2>
        ${p.truncated ? notice('info', 'This page is longer than a preview shows; the rest is in the original.') : ''}
        <label for="preview_text">Text of page ${p.page} (as extracted; untrusted)</label>
        <textarea id="preview_text" readonly rows="24">${p.text}</textarea>
        <p class="actions">
          ${p.page > 1 ? html`<a class="button secondary" href="${base}?page=${p.page - 1}">← Page ${p.page - 1}</a>` : ''}
          ${p.page < p.page_count ? html`<a class="button secondary" href="${base}?page=${p.page + 1}">Page ${p.page + 1} →</a>` : ''}
        </p>
      </section>`,
  });
}
