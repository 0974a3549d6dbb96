/** JSON values embedded in HTML (`<script type="application/ld+json">` and `application/json`). */
import type { ExtractedJson } from './types.ts';

/** Larger scripts are skipped, not truncated: a cut JSON value would not parse anyway. */
export const MAX_JSON_SCRIPT_CHARS = 1_000_000;
export const MAX_JSON_SCRIPTS = 100;

/** Script bodies sometimes wrap JSON in CDATA or HTML comments for old browsers. */
function unwrap(source: string): string {
  return source
    .trim()
    .replace(/^<!\[CDATA\[|\]\]>$/g, '')
    .replace(/^<!--|-->$/g, '')
    .trim();
}

/**
 * Every parseable JSON-LD and `application/json` script in a parsed (unsanitised) HTML document,
 * in document order; invalid or oversized scripts are skipped. Call before scripts are removed.
 */
export function extractHtmlJson(document: Document): ExtractedJson[] {
  const found: ExtractedJson[] = [];
  for (const script of Array.from(document.querySelectorAll('script'))) {
    if (found.length >= MAX_JSON_SCRIPTS) break;
    const type = (script.getAttribute('type') ?? '').split(';')[0]?.trim().toLowerCase();
    const source =
      type === 'application/ld+json' ? 'JSON_LD' : type === 'application/json' ? 'EMBEDDED' : null;
    if (!source) continue;
    const body = script.textContent ?? '';
    if (body.length > MAX_JSON_SCRIPT_CHARS) continue;
    try {
      found.push({ source, index: found.length, value: JSON.parse(unwrap(body)) });
    } catch {
      // Broken embedded JSON is common on real pages; it is simply not extracted.
    }
  }
  return found;
}
