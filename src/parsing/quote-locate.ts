/**
 * Finds a quote in a stored text: exactly first, then after folding both sides the same way
 * (whitespace runs, curly quotes, dashes, invisible characters, Unicode compatibility forms), with
 * the match reported in the original text's offsets. No case folding: a quote must read the same.
 * Runs in the parser pool: the text and the quote are untrusted.
 */
import { INVISIBLE_CHARACTER } from './html/invisible.ts';
import type { PageOffset, QuoteMatch } from './types.ts';

const QUOTES: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201b': "'",
  '\u2032': "'",
  '\u00b4': "'",
  '`': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u201f': '"',
  '\u2033': '"',
  '\u00ab': '"',
  '\u00bb': '"',
};
const DASHES = /[\u2010-\u2015\u2212]/;
const WHITESPACE = /\s/u;
const INVISIBLE_GLOBAL = new RegExp(INVISIBLE_CHARACTER.source, 'gu');
/** Printable ASCII other than space and backtick folds to itself: the common case, kept off the slow path. */
const isPlainAscii = (cluster: string): boolean => {
  if (cluster.length !== 1) return false;
  const code = cluster.charCodeAt(0);
  return code > 0x20 && code < 0x7f && code !== 0x60;
};

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Folds one character of an NFKC-normalised cluster. */
function foldCharacter(character: string): string {
  if (WHITESPACE.test(character)) return ' ';
  const quote = QUOTES[character];
  if (quote) return quote;
  if (DASHES.test(character)) return '-';
  return character;
}

/** Folds one grapheme cluster: invisible characters dropped, NFKC, then quotes, dashes and whitespace. */
function foldCluster(cluster: string): string {
  if (isPlainAscii(cluster)) return cluster;
  const visible = cluster.replace(INVISIBLE_GLOBAL, '');
  if (!visible) return '';
  let out = '';
  for (const character of visible.normalize('NFKC')) out += foldCharacter(character);
  return out;
}

/**
 * Intl.Segmenter slows down sharply on long inputs (each step costs time in proportion to the
 * input), so text is segmented in windows of this many code units.
 */
const SEGMENT_WINDOW = 256;

/**
 * Calls `visit` with each grapheme cluster of `text` and its offset. Two ASCII characters in a row
 * always have a cluster break between them (CR LF aside, which folds to one space either way), so
 * ASCII is taken a character at a time and only the rest goes through Intl.Segmenter, window by
 * window: every cluster of a window but the last is final, and the next window starts at that last
 * cluster (a real boundary), so clusters never depend on where a window was cut.
 */
function forEachCluster(text: string, visit: (cluster: string, index: number) => void): void {
  const length = text.length;
  let i = 0;
  while (i < length) {
    if (text.charCodeAt(i) < 0x80 && (i + 1 === length || text.charCodeAt(i + 1) < 0x80)) {
      visit(text.charAt(i), i);
      i++;
      continue;
    }
    const windowEnd = Math.min(length, i + SEGMENT_WINDOW);
    const clusters = Array.from(graphemes.segment(text.slice(i, windowEnd)));
    // The window's last cluster may continue past it, unless the window reaches the end (or the
    // cluster fills the whole window: pathological stacks of marks are cut there).
    const final = windowEnd === length || clusters.length === 1 ? clusters.length : clusters.length - 1;
    for (let k = 0; k < final; k++) {
      const { segment, index } = clusters[k] as Intl.SegmentData;
      visit(segment, i + index);
    }
    i = final === clusters.length ? windowEnd : i + (clusters[final]?.index ?? windowEnd - i);
  }
}

/** A folded text and, for each of its code units, the span of the original it came from. */
export interface FoldedText {
  folded: string;
  start: number[];
  end: number[];
}

/**
 * Folds a text for quote matching, grapheme cluster by grapheme cluster so a precomposed letter
 * and its decomposed form (e.g. "é" and "e" + U+0301) fold alike. Whitespace runs become one space
 * (leading whitespace is dropped); every folded code unit maps back to its whole cluster.
 */
export function foldForMatching(text: string): FoldedText {
  const parts: string[] = [];
  const start: number[] = [];
  const end: number[] = [];
  let lastWasSpace = true; // drops leading whitespace
  forEachCluster(text, (cluster, index) => {
    const next = index + cluster.length;
    const out = foldCluster(cluster);
    for (let i = 0; i < out.length; i++) {
      const unit = out.charAt(i);
      if (unit === ' ') {
        if (lastWasSpace) {
          // A whitespace run counts once; its single space spans all of it.
          if (end.length > 0) end[end.length - 1] = next;
          continue;
        }
        lastWasSpace = true;
      } else lastWasSpace = false;
      parts.push(unit);
      start.push(index);
      end.push(next);
    }
  });
  return { folded: parts.join(''), start, end };
}

/** The page an offset falls on, or null when the text has no pages (or the offset precedes them). */
function pageAt(pages: ReadonlyArray<PageOffset>, offset: number): number | null {
  let found: number | null = null;
  for (const p of pages) {
    if (p.offset <= offset) found = p.page;
    else break;
  }
  return found;
}

/**
 * Finds a quote in a stored text: exactly first, then folded (whitespace runs, curly quotes,
 * dashes, invisible characters and Unicode compatibility forms, per grapheme cluster). `page`
 * limits the search to one page when the text has pages. Returns null when the quote is not there.
 */
export function locateQuote(
  text: string,
  quote: string,
  pages: ReadonlyArray<PageOffset>,
  page?: number,
): QuoteMatch | null {
  let from = 0;
  let to = text.length;
  if (page !== undefined) {
    const index = pages.findIndex((p) => p.page === page);
    if (index < 0) return null;
    from = pages[index]?.offset ?? 0;
    to = pages[index + 1]?.offset ?? text.length;
  }
  const scope = text.slice(from, to);
  if (quote) {
    const exact = scope.indexOf(quote);
    if (exact >= 0) {
      const offset = from + exact;
      return { match: 'EXACT', offset, length: quote.length, page: pageAt(pages, offset) };
    }
  }
  const needle = foldForMatching(quote).folded.trim();
  if (!needle) return null;
  const hay = foldForMatching(scope);
  const at = hay.folded.indexOf(needle);
  if (at < 0) return null;
  const offset = from + (hay.start[at] ?? 0);
  const endOffset = from + (hay.end[at + needle.length - 1] ?? 0);
  return { match: 'NORMALISED', offset, length: endOffset - offset, page: pageAt(pages, offset) };
}
