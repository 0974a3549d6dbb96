/**
 * Word boundaries that know letters outside ASCII. JavaScript's `\b` and `\w` are ASCII-only, even
 * with the u flag: `\bà` never matches "À partir…" (no boundary between a space and "À"), `\bAI\b`
 * matches inside "AIé", and `this\s+\w+` stops at "résumé". `unicodeWords` rewrites a pattern
 * written with `\b` and `\w` so that a word character is any letter, combining mark, digit or "_"
 * of the Basic Multilingual Plane — scripts written without spaces (Han, Hiragana, Katakana)
 * excepted, so "AI" in "AIです" is still a word of its own.
 *
 * The result is compiled without the u flag: with it (and i), V8 scans these patterns about ten
 * times slower. The word class is therefore spelled as explicit BMP ranges, built once from the
 * Unicode properties. A `\b` where a word starts becomes `(?<!W)`, kept behind ASCII's cheap `\b`
 * when the word starts with an ASCII letter; a `\b` where a word ends becomes `(?!W)`.
 */

/**
 * Word characters as the body of a character class: ASCII's, Latin-1 and Latin Extended letters,
 * everything from the combining marks to Greek Extended (Greek, Cyrillic, Armenian, Hebrew, Arabic,
 * Devanagari, Thai, Hangul Jamo, Latin Extended Additional with Vietnamese…) and Hangul syllables.
 * Four ranges because V8 tests a class of a few hundred ranges (the exact \p{L}\p{M}\p{N}) ten
 * times slower, and even thirty ranges twice as slow; the price is that the few punctuation marks
 * inside those blocks (× ÷, the Arabic comma, the Devanagari danda) count as letters, and no
 * pattern puts a word boundary next to them. Han and kana are left out: they have no spaces.
 */
const WORD_BODY = String.raw`\w\u00C0-\u024F\u0300-\u1FFF\uAC00-\uD7A3`;
const WORD = `[${WORD_BODY}]`;
const WORD_START = `(?<!${WORD})`;
const WORD_END = `(?!${WORD})`;
const BOUNDARY = `(?:(?<=${WORD})${WORD_END}|${WORD_START}(?=${WORD}))`;

const ASCII_WORD = /[A-Za-z0-9_]/;
/** A character class of ASCII word characters only, such as `[0-9a-fA-F]`. */
const ASCII_CLASS = /^\[(?:[A-Za-z0-9_]|[A-Za-z0-9]-[A-Za-z0-9])+\]/;

/** Whether the pattern at `source[at]` can only start with an ASCII word character. */
function startsAscii(source: string, at: number): boolean {
  if (ASCII_WORD.test(source[at] ?? '')) return true;
  if (source[at] === '[') return ASCII_CLASS.test(source.slice(at, at + 40));
  if (source[at] !== '(') return false;
  return groupStarts(source, at)?.every((start) => startsAscii(source, start)) ?? false;
}

/** Where each top-level alternative of the group opening at `source[open]` starts. */
function groupStarts(source: string, open: number): number[] | null {
  let i = open + 1;
  if (source[i] === '?') {
    if (source[i + 1] !== ':') return null;
    i += 2;
  }
  const starts = [i];
  let depth = 0;
  for (; i < source.length; i++) {
    const character = source[i]!;
    if (character === '\\') i++;
    else if (character === '[') {
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
    } else if (character === '(') depth++;
    else if (character === ')') {
      if (depth === 0) return starts;
      depth--;
    } else if (character === '|' && depth === 0) starts.push(i + 1);
  }
  return null;
}

/** What a `\b` at `index` (the backslash) becomes, from what the pattern puts on each side of it. */
function boundaryAt(source: string, index: number): string {
  const previous = source[index - 1] ?? '';
  const next = source[index + 2] ?? '';
  const nextEscape = next === '\\' ? source[index + 3] : '';
  const afterWord = /[\p{L}\p{N}_)\]?*+}]/u.test(previous) && source[index - 2] !== '\\';
  const endsHere = next === '' || /[|)$.,:;'"\s?]/.test(next) || (next === '\\' && nextEscape !== 'w');
  if (endsHere && afterWord) return WORD_END;
  if (afterWord) return BOUNDARY;
  if (startsAscii(source, index + 2)) return `\\b${WORD_START}`;
  return endsHere ? BOUNDARY : WORD_START;
}

/**
 * `source` with every `\b` and `\w` made Unicode-aware. Escapes are read as escapes (so `\\b` is a
 * backslash and a "b"); inside a character class `\w` becomes the letter ranges and `\b` is left
 * alone (it means backspace there, and no pattern uses it).
 */
export function unicodeWordSource(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const character = source[i]!;
    if (character === '\\') {
      const next = source[i + 1] ?? '';
      if (next === 'w') out += inClass ? WORD_BODY : WORD;
      else if (next === 'b' && !inClass) out += boundaryAt(source, i);
      else if ((next === 'W' || next === 'B') && !inClass) {
        throw new Error(`unicodeWords: \\${next} is not supported`);
      } else out += `\\${next}`;
      i++;
      continue;
    }
    if (character === '[' && !inClass) inClass = true;
    else if (character === ']' && inClass) inClass = false;
    out += character;
  }
  return out;
}

/** `pattern` (a RegExp or its source) with Unicode-aware `\b` and `\w`; never the u flag. */
export function unicodeWords(pattern: RegExp | string, flags?: string): RegExp {
  const source = typeof pattern === 'string' ? pattern : pattern.source;
  const base = flags ?? (typeof pattern === 'string' ? '' : pattern.flags);
  if (base.includes('u')) throw new Error('unicodeWords: write the pattern without the u flag');
  return new RegExp(unicodeWordSource(source), base);
}

/** The top-level alternatives of a pattern source. */
export function alternatives(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const character = source[i]!;
    if (character === '\\') i++;
    else if (character === '[') {
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
    } else if (character === '(') depth++;
    else if (character === ')') depth--;
    else if (character === '|' && depth === 0) {
      parts.push(source.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(source.slice(start));
  return parts;
}

/**
 * `pattern` as one or two regular expressions: the alternatives that start at a word boundary
 * and those that do not. V8 scans a mix of the two about ten times slower than both apart.
 */
export function splitByStart(pattern: RegExp): RegExp[] {
  const parts = alternatives(pattern.source);
  const atWord = parts.filter((part) => part.startsWith('\\b'));
  const other = parts.filter((part) => !part.startsWith('\\b'));
  if (atWord.length === 0 || other.length === 0) return [unicodeWords(pattern)];
  return [unicodeWords(atWord.join('|'), pattern.flags), unicodeWords(other.join('|'), pattern.flags)];
}
