/**
 * The nearest near-miss of a quote that is not in a text: where the text says almost the same
 * thing, so an agent can see what it misquoted instead of guessing. Runs in the parser pool after
 * an exact and a folded search both failed.
 *
 * Approximate matching over a whole text is quadratic, so it is done in two steps: short pieces
 * of the (folded, lower-cased) quote are looked up in the folded text and vote for where the
 * quote would start; the best few places are then compared by edit distance over a window around
 * them (Sellers' semi-global alignment: the quote must be used whole, the text may start and end
 * anywhere in the window). Work is bounded: at most PIECES lookups of at most HITS_PER_PIECE
 * places each, and CANDIDATES windows of about twice the quote's length.
 */
import { foldForMatching } from './quote-locate.ts';
import type { NearMissMatch, PageOffset } from './types.ts';

/** similarity is 1 - edit distance / quote length, on the folded, lower-cased forms; at least MIN_SIMILARITY. */
export type NearMiss = NearMissMatch;

const PIECE = 8;
const PIECES = 48;
const HITS_PER_PIECE = 64;
const CANDIDATES = 4;
export const MIN_SIMILARITY = 0.6;
/** Longer quotes are compared by their first part: enough to place them, and bounded. */
const MAX_QUOTE = 2_000;

export function nearestMiss(
  text: string,
  quote: string,
  pages: ReadonlyArray<PageOffset>,
  page?: number,
): NearMiss | null {
  let from = 0;
  let to = text.length;
  if (page !== undefined && pages.length > 0) {
    const index = pages.findIndex((p) => p.page === page);
    if (index < 0) return null;
    from = pages[index]?.offset ?? 0;
    to = pages[index + 1]?.offset ?? text.length;
  }
  const needle = foldForMatching(quote).folded.trim().toLowerCase().slice(0, MAX_QUOTE);
  if (needle.length < PIECE) return null;
  const hay = foldForMatching(text.slice(from, to));
  const folded = hay.folded.toLowerCase();
  const best = bestAlignment(folded, needle);
  if (!best || best.similarity < MIN_SIMILARITY) return null;
  const offset = from + (hay.start[best.start] ?? 0);
  const end = from + (hay.end[best.end - 1] ?? 0);
  return {
    offset,
    length: end - offset,
    page: pageOf(pages, offset),
    similarity: Math.round(best.similarity * 1000) / 1000,
  };
}

/** Where the needle would start in the text, by votes of its pieces; then the best by edit distance. */
function bestAlignment(text: string, needle: string) {
  const votes = new Map<number, number>();
  const step = Math.max(1, Math.floor((needle.length - PIECE) / PIECES));
  for (let i = 0; i + PIECE <= needle.length; i += step) {
    const piece = needle.slice(i, i + PIECE);
    let at = text.indexOf(piece);
    for (let hits = 0; at >= 0 && hits < HITS_PER_PIECE; hits++) {
      // Rounded, so pieces displaced by a few inserted or dropped characters vote together.
      const start = Math.max(0, Math.round((at - i) / 8) * 8);
      votes.set(start, (votes.get(start) ?? 0) + 1);
      at = text.indexOf(piece, at + 1);
    }
  }
  const places = [...votes.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, CANDIDATES);
  let best: { start: number; end: number; similarity: number } | null = null;
  for (const [place] of places) {
    const slack = Math.ceil(needle.length / 2) + 8;
    const windowStart = Math.max(0, place - slack);
    const window = text.slice(windowStart, place + needle.length + slack);
    const found = semiGlobal(needle, window);
    const similarity = 1 - found.distance / needle.length;
    if (!best || similarity > best.similarity) {
      best = { start: windowStart + found.start, end: windowStart + found.end, similarity };
    }
  }
  return best;
}

/**
 * Edit distance of the whole needle against the best substring of the window (free start and
 * end in the window), with that substring's bounds. Two rows of costs and of start positions.
 */
function semiGlobal(needle: string, window: string): { distance: number; start: number; end: number } {
  const n = window.length;
  let prev = new Int32Array(n + 1);
  let cur = new Int32Array(n + 1);
  let prevStart = Int32Array.from({ length: n + 1 }, (_, j) => j);
  let curStart = new Int32Array(n + 1);
  for (let i = 1; i <= needle.length; i++) {
    cur[0] = i;
    curStart[0] = 0;
    const c = needle.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const diagonal = prev[j - 1]! + (window.charCodeAt(j - 1) === c ? 0 : 1);
      const up = prev[j]! + 1;
      const left = cur[j - 1]! + 1;
      if (diagonal <= up && diagonal <= left) {
        cur[j] = diagonal;
        curStart[j] = prevStart[j - 1]!;
      } else if (up <= left) {
        cur[j] = up;
        curStart[j] = prevStart[j]!;
      } else {
        cur[j] = left;
        curStart[j] = curStart[j - 1]!;
      }
    }
    [prev, cur] = [cur, prev];
    [prevStart, curStart] = [curStart, prevStart];
  }
  // Among equally close ends, the span closest to the quote's own length: a substituted last
  // character should not read as a dropped one.
  let end = 0;
  const gap = (j: number) => Math.abs(j - prevStart[j]! - needle.length);
  for (let j = 1; j <= n; j++) {
    if (prev[j]! < prev[end]! || (prev[j] === prev[end] && gap(j) < gap(end))) end = j;
  }
  return { distance: prev[end]!, start: prevStart[end]!, end };
}

function pageOf(pages: ReadonlyArray<PageOffset>, offset: number): number | null {
  let found: number | null = null;
  for (const p of pages) {
    if (p.offset <= offset) found = p.page;
    else break;
  }
  return found;
}
