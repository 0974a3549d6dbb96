import type { PublishedLimit } from '../../kernel/limits.ts';
import { FETCH_LIMITS } from '../../net/limits.ts';
import { DIFF_MAX_CHARS, IMPORT_LIMITS } from '../../parsing/index.ts';

/**
 * Reading's numbers: the windows a text is read in, Cairn's own bounds on a read (SPEC leaves them
 * to us; the fetcher's and the diff's are their layers', net/ and parsing/), web_search's and the
 * owner's preview. Other areas read them through reading's index.ts.
 */
export const READING_LIMITS = {
  window: { defaultChars: 12_000, minChars: 200, maxChars: 60_000 },
  read: {
    responseBytes: FETCH_LIMITS.responseBytes,
    timeoutSeconds: 20,
    redirects: FETCH_LIMITS.redirects,
    urlChars: 2_048,
    purposeChars: 500,
    quoteChars: 2_000,
    diffChars: DIFF_MAX_CHARS,
    extractChars: 60_000,
    tableRows: 500,
    storedTextChars: 2_000_000,
  },
  search: { queryChars: 400, defaultResults: 10, maxResults: 20 },
  previewPage: { min: 1, max: 40 },
} as const;

const L = READING_LIMITS;
const I = IMPORT_LIMITS;

/** What `/v1/public/limits` publishes of reading and of research imports (the area's `limits`). */
export const PUBLISHED_READING_LIMITS: PublishedLimit[] = [
  {
    area: 'fetch_text / file windows',
    limit: 'default 12,000 characters; max_chars 200-60,000',
    values: {
      default_chars: L.window.defaultChars,
      min_chars: L.window.minChars,
      max_chars: L.window.maxChars,
    },
  },
  {
    area: 'Research imports',
    limit:
      'files up to 12 MiB; PDF up to 40 pages; embedded image 20 million pixels; page 40 million pixels; OCR render 20 million pixels; two parser/OCR subprocesses per web worker; logs up to 5,000 lines; SBOM CycloneDX JSON 1.4-1.6, SPDX JSON 2.x',
    values: {
      file_bytes: I.fileBytes,
      pdf_pages: I.pdfPages,
      embedded_image_pixels: I.embeddedImagePixels,
      page_pixels: I.pagePixels,
      ocr_render_pixels: I.ocrRenderPixels,
      parser_processes_per_worker: I.parserProcessesPerWorker,
      log_lines: I.logLines,
    },
  },
  {
    area: 'Reading (fetch_text and other fresh reads)',
    limit: `responses up to 12 MiB, ${L.read.timeoutSeconds} seconds per read by default, at most ${L.read.redirects} redirects; url up to ${L.read.urlChars} characters; declared_purpose up to ${L.read.purposeChars}; quotes to locate up to ${L.read.quoteChars}; diffs and extractions return up to 60,000 characters (tables up to ${L.read.tableRows} rows); stored text up to 2,000,000 characters per read (cut beyond, with TEXT_TRUNCATED)`,
    values: {
      response_bytes: L.read.responseBytes,
      timeout_seconds: L.read.timeoutSeconds,
      redirects: L.read.redirects,
      url_chars: L.read.urlChars,
      purpose_chars: L.read.purposeChars,
      quote_chars: L.read.quoteChars,
      diff_chars: L.read.diffChars,
      extract_chars: L.read.extractChars,
      table_rows: L.read.tableRows,
      stored_text_chars: L.read.storedTextChars,
    },
  },
  {
    area: 'web_search',
    limit: `query up to ${L.search.queryChars} characters; limit 1-${L.search.maxResults} (default ${L.search.defaultResults})`,
    values: {
      query_chars: L.search.queryChars,
      default_results: L.search.defaultResults,
      max_results: L.search.maxResults,
    },
  },
  { area: 'Preview page', limit: '1-40', values: { min: L.previewPage.min, max: L.previewPage.max } },
];
