import { pageAt } from './window.ts';

/** Where a quote was found in a stored text. */
export interface QuoteMatch {
  /** EXACT: the quote as given; NORMALISED: after folding whitespace, quotes, dashes and Unicode forms. */
  match: 'EXACT' | 'NORMALISED';
  offset: number;
  length: number;
  page: number | null;
}

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
const INVISIBLE = /[\u00ad\u200b-\u200f\u2060\ufeff\u202a-\u202e\u2066-\u2069]/;

/**
 * Folds a text for quote matching and keeps, for every folded character, the span of the
 * original it came from, so a match can be reported in the original's offsets.
 */
export function foldForMatching(text: string): { folded: string; start: number[]; end: number[] } {
  let folded = '';
  const start: number[] = [];
  const end: number[] = [];
  let lastWasSpace = true; // drops leading whitespace
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(cp);
    const next = i + ch.length;
    if (INVISIBLE.test(ch)) {
      i = next;
      continue;
    }
    let out: string;
    if (/\s/u.test(ch)) out = ' ';
    else if (QUOTES[ch]) out = QUOTES[ch];
    else if (DASHES.test(ch)) out = '-';
    else out = ch.normalize('NFKC');
    if (out === ' ') {
      if (lastWasSpace) {
        if (end.length > 0) end[end.length - 1] = Math.max(end[end.length - 1] ?? 0, next);
        i = next;
        continue;
      }
      lastWasSpace = true;
    } else lastWasSpace = false;
    for (const unit of out) {
      folded += unit;
      start.push(i);
      end.push(next);
    }
    i = next;
  }
  return { folded, start, end };
}

/**
 * Finds a quote in a stored text: exactly first, then folded (whitespace runs, curly quotes,
 * dashes, invisible characters and Unicode compatibility forms). `page` limits the search to
 * one page when the text has pages. Returns null when the quote is not there.
 */
export function locateQuote(
  text: string,
  quote: string,
  pages: ReadonlyArray<{ page: number; offset: number }>,
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
  const exact = scope.indexOf(quote);
  if (exact >= 0) {
    const offset = from + exact;
    return { match: 'EXACT', offset, length: quote.length, page: pageAt(pages, offset) };
  }
  const hay = foldForMatching(scope);
  const needle = foldForMatching(quote).folded.trim();
  if (!needle) return null;
  const at = hay.folded.indexOf(needle);
  if (at < 0) return null;
  const offset = from + (hay.start[at] ?? 0);
  const endOffset = from + (hay.end[at + needle.length - 1] ?? 0);
  return { match: 'NORMALISED', offset, length: endOffset - offset, page: pageAt(pages, offset) };
}
