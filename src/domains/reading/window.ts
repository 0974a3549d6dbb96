import { READING_LIMITS } from './limits.ts';

/** One window of a stored text, and where the next one starts. */
export interface TextWindow {
  text: string;
  offset: number;
  /** Offset of the next window; null when this one reaches the end. */
  next_offset: number | null;
  total_chars: number;
  /** The window size used (the asked one or the default): the next window is read with it. */
  max_chars: number;
  /** Present when `find` was asked: whether it matched, and whether a heading did. */
  find?: { query: string; found: boolean; matched: 'HEADING' | 'TEXT' | null };
}

export interface WindowRequest {
  offset?: number | undefined;
  maxChars?: number | undefined;
  /** A heading (or, failing that, any text) to start the window at. */
  find?: string | undefined;
}

const HEADING = /^#{1,6} (.*)$/gm;

/** Where `query` starts, preferring a heading line whose title contains it; null when absent. */
export function findInText(
  text: string,
  query: string,
  from = 0,
): { offset: number; matched: 'HEADING' | 'TEXT' } | null {
  const needle = query
    .trim()
    .replace(/^#+\s*/, '')
    .toLowerCase();
  if (!needle) return null;
  for (const m of text.matchAll(HEADING)) {
    if (m.index >= from && (m[1] ?? '').toLowerCase().includes(needle)) {
      return { offset: m.index, matched: 'HEADING' };
    }
  }
  const at = text.toLowerCase().indexOf(needle, from);
  if (at < 0) return null;
  // Start at the beginning of the line, so the window shows the match in its context.
  return { offset: text.lastIndexOf('\n', at) + 1, matched: 'TEXT' };
}

/**
 * Cuts one window out of a stored text. Windows never split a surrogate pair, so the text of
 * consecutive windows joined is the stored text exactly.
 */
export function windowOf(text: string, req: WindowRequest = {}): TextWindow {
  const maxChars = req.maxChars ?? READING_LIMITS.window.defaultChars;
  let start = Math.min(Math.max(0, req.offset ?? 0), text.length);
  let find: TextWindow['find'];
  if (req.find !== undefined) {
    const hit = findInText(text, req.find, start);
    find = { query: req.find, found: hit !== null, matched: hit?.matched ?? null };
    if (hit) start = hit.offset;
  }
  if (isLowSurrogate(text, start)) start -= 1;
  let end = Math.min(text.length, start + maxChars);
  if (end < text.length && isLowSurrogate(text, end)) end -= 1;
  return {
    text: text.slice(start, end),
    offset: start,
    next_offset: end < text.length ? end : null,
    total_chars: text.length,
    max_chars: maxChars,
    ...(find ? { find } : {}),
  };
}

function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff && index > 0;
}

/** The page an offset falls on, given page start offsets; null when the text has no pages. */
export function pageAt(
  pages: ReadonlyArray<{ page: number; offset: number }>,
  offset: number,
): number | null {
  let found: number | null = null;
  for (const p of pages) {
    if (p.offset <= offset) found = p.page;
    else break;
  }
  return found;
}
