import { CAMPAIGN_LIMITS } from '../limits.ts';

/**
 * The verbatim quotations a summary makes (SPEC task_complete: "a verbatim source quotation of
 * 20 or more characters beside the claim it supports"). A quotation is text between a pair of
 * quotation marks: straight or curly double quotes, low-high German quotes, guillemets, curly
 * single quotes or corner brackets. Straight single quotes are not used: they are apostrophes
 * far more often than quotation marks. Shorter quotations are not checked (they are names and
 * terms, not evidence of a claim).
 */

const PAIRS: Array<[open: string, close: string]> = [
  ['"', '"'],
  ['\u201C', '\u201D'], // “ ”
  ['\u201E', '\u201C'], // „ “
  ['\u201E', '\u201D'], // „ ”
  ['\u00AB', '\u00BB'], // « »
  ['\u2018', '\u2019'], // ‘ ’
  ['\u300C', '\u300D'], // 「 」
];

/**
 * Longest span taken as one quotation (a summary's own limit): a longer quotation is checked
 * like any other, and a span from a stray mark to a far one fails the check, as it should.
 */
const MAX_QUOTE_CHARS = 20_000;
/** How many quotations one summary may have checked. */
export const MAX_QUOTES = 30;

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Quotations of at least CAMPAIGN_LIMITS.quoteMinChars characters, in order of appearance, without repeats. */
export function extractQuotes(summary: string): string[] {
  const found: Array<{ at: number; text: string }> = [];
  for (const [open, close] of PAIRS) {
    const re = new RegExp(
      `${escapeRe(open)}([^${escapeRe(open)}${escapeRe(close)}]{1,${MAX_QUOTE_CHARS}})${escapeRe(close)}`,
      'gu',
    );
    for (const m of summary.matchAll(re)) {
      // Marks inside guillemets are often spaced (« like this »): the quote is what is between.
      const text = (m[1] ?? '').trim();
      if ([...text].length >= CAMPAIGN_LIMITS.quoteMinChars) found.push({ at: m.index ?? 0, text });
    }
  }
  const ordered = found.sort((a, b) => a.at - b.at).map((f) => f.text);
  return [...new Set(ordered)];
}
