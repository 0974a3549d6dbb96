/**
 * Finds text addressed to the reading agent rather than to a human reader: prompt-injection
 * phrasing in several languages, chat role markers, addresses to an AI reader, tool-call lures,
 * requests for what only the agent holds, markdown-image exfiltration links and encoded payloads.
 * The result only annotates; the text is never changed, so quotes still match. Patterns are
 * deliberately specific (instruction-patterns.ts), and a match that is quoted as an example or
 * reported as what someone told a model is left alone (instruction-context.ts). How well this
 * works is measured on a labelled set: docs/injection.md, `npm run bench -- injection`.
 */

import type { HiddenSource, HiddenText, InstructionSpan } from '../types.ts';
import { ADDRESS_PATTERNS } from './address.ts';
import { DiscussionContext } from './context.ts';
import { findEncodedSpans } from './decode.ts';
import { PATTERNS, type Pattern } from './patterns.ts';
import { OTHER_LANGUAGE_PATTERNS } from './patterns-intl.ts';
import { PERSONA_PATTERNS } from './persona.ts';
import { candidateWindows, type Window } from './prefilter.ts';
import { splitByStart, unicodeWords } from './regex.ts';
import { TASK_PATTERNS } from './task.ts';

const MAX_SPANS = 50;
const MAX_EXCERPT = 200;

/**
 * Every pattern, with word boundaries that see letters outside ASCII (instruction-regex.ts), its
 * alternatives that start at a word and those that do not compiled apart (as fast as V8 allows).
 */
const ALL_PATTERNS: Pattern[] = [
  ...PATTERNS,
  ...ADDRESS_PATTERNS,
  ...TASK_PATTERNS,
  ...PERSONA_PATTERNS,
  ...OTHER_LANGUAGE_PATTERNS,
].flatMap((pattern) => splitByStart(pattern.regex).map((regex) => ({ ...pattern, regex })));

const NEGATION_BEFORE = unicodeWords(
  /\b(?:never|not|don't|do\s+not|no\s+one|nobody|won't|will\s+not|shouldn't|should\s+not)\s+(?:\w+\s+){0,2}$/i,
);

function isNegated(text: string, offset: number): boolean {
  return NEGATION_BEFORE.test(text.slice(Math.max(0, offset - 40), offset));
}

/**
 * Matches of every pattern in `text`, quoted examples and reported speech left out. The patterns
 * read only the windows the prefilter finds (instruction-prefilter.ts) unless `fullScan` is set.
 */
function matchPatterns(text: string, fullScan = false): InstructionSpan[] {
  const spans: InstructionSpan[] = [];
  const context = new DiscussionContext(text);
  const windows: Window[] = fullScan ? [{ start: 0, end: text.length }] : candidateWindows(text);
  for (const window of windows) {
    const slice = text.slice(window.start, window.end);
    const cut = window.start > 0 && text[window.start - 1] !== '\n';
    for (const pattern of ALL_PATTERNS) {
      const { regex } = pattern;
      regex.lastIndex = 0;
      for (let match = regex.exec(slice); match !== null; match = regex.exec(slice)) {
        const offset = window.start + match.index;
        if (match[0].length === 0) {
          regex.lastIndex++;
          continue;
        }
        // A window cut inside a long line does not start a line: `^` must not match there.
        if (cut && match.index === 0 && regex.multiline) continue;
        if (pattern.skipWhenNegated && isNegated(text, offset)) continue;
        if (pattern.requires && !pattern.requires(text, offset, match[0])) continue;
        if (context.isDiscussed(offset)) continue;
        spans.push({
          offset,
          length: match[0].length,
          kind: pattern.kind,
          excerpt: match[0].slice(0, MAX_EXCERPT),
        });
      }
    }
  }
  return spans;
}

/** Overlapping spans merged into the first, in offset order, at most MAX_SPANS. */
function mergeSpans(spans: InstructionSpan[]): InstructionSpan[] {
  spans.sort((a, b) => a.offset - b.offset);
  const merged: InstructionSpan[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.offset < last.offset + last.length) continue;
    merged.push(span);
    if (merged.length >= MAX_SPANS) break;
  }
  return merged;
}

/**
 * Every instruction-like match in `text`, ordered by offset, overlapping matches merged into the
 * first. `fullScan` runs every pattern over the whole text instead of the prefilter's windows (the
 * same result, slower; tests compare the two).
 */
export function findInstructionSpans(text: string, { fullScan = false } = {}): InstructionSpan[] {
  const direct = matchPatterns(text, fullScan);
  const encoded = findEncodedSpans(text, (decoded) => matchPatterns(decoded, fullScan), MAX_EXCERPT);
  // An encoded run's context is that of the run: a payload quoted as an example stays an example.
  const context = new DiscussionContext(text);
  return mergeSpans([...direct, ...encoded.filter((span) => !context.isDiscussed(span.offset))]);
}

const HIDDEN_WHERE: Record<HiddenSource, string> = {
  HTML_COMMENT: 'an HTML comment',
  ARIA_HIDDEN: 'an element marked aria-hidden',
  HIDDEN_ELEMENT: 'an element hidden by its own style or hidden attribute',
  CSS_HIDDEN: "an element hidden by the page's stylesheet",
  TAG_CHARACTERS: 'invisible Unicode tag characters',
};

/**
 * Spans for the final text plus one HIDDEN_TEXT span (offset -1) for each instruction-like
 * match inside content that was removed as hidden, and the flags that follow from them. A hidden
 * text given as a plain string is the ASCII that removed tag characters spelled.
 */
export function detectInstructions(
  text: string,
  hiddenTexts: ReadonlyArray<string | HiddenText> = [],
): { spans: InstructionSpan[]; flags: string[] } {
  const spans = findInstructionSpans(text);
  for (const hidden of hiddenTexts) {
    const { text: removed, source } =
      typeof hidden === 'string' ? { text: hidden, source: 'TAG_CHARACTERS' as const } : hidden;
    for (const match of findInstructionSpans(removed)) {
      if (spans.length >= MAX_SPANS) break;
      spans.push({
        offset: -1,
        length: match.length,
        kind: 'HIDDEN_TEXT',
        excerpt: match.excerpt,
        note: `Removed from the text: hidden in ${HIDDEN_WHERE[source]}, where a reader does not see it. Matched ${match.kind}.`,
      });
    }
  }
  return { spans, flags: spans.length > 0 ? ['INSTRUCTION_LIKE_CONTENT'] : [] };
}
