/**
 * CSS selectors as the cascade needs them: the selector to query for a page at rest (or none),
 * its approximate specificity, and the simple subject of its last compound used as a pre-check.
 */
import { matchingClose, skipString } from './css-scan.ts';

const MAX_SELECTOR_CHARS = 1_000;

export interface Subject {
  tag: string | null;
  id: string | null;
  classes: string[];
}

const DYNAMIC_PSEUDO = new Set(['hover', 'focus', 'focus-within', 'focus-visible', 'active', 'target']);

const STRUCTURAL_PSEUDO = new Set([
  'first-child',
  'last-child',
  'only-child',
  'nth-child',
  'nth-last-child',
  'first-of-type',
  'last-of-type',
  'only-of-type',
  'nth-of-type',
  'nth-last-of-type',
  'empty',
  'root',
  'not',
  'is',
  'where',
]);

/**
 * The selector to query for a page at rest, or null when it cannot apply to one: pseudo-elements,
 * user-state pseudo-classes (:hover, :focus, :checked…) and anything unknown are skipped;
 * `:not(:focus)`-style negations of user state are always true at rest and are dropped.
 */
export function staticSelector(selector: string): string | null {
  const trimmed = selector.trim();
  if (!trimmed || trimmed.length > MAX_SELECTOR_CHARS || trimmed.includes('&')) return null;
  let out = '';
  let i = 0;
  while (i < trimmed.length) {
    const char = trimmed[i]!;
    if (char === '"' || char === "'") {
      const end = skipString(trimmed, i);
      out += trimmed.slice(i, end);
      i = end;
      continue;
    }
    if (char === '\\') {
      out += trimmed.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (char === '[') {
      const end = trimmed.indexOf(']', i);
      if (end < 0) return null;
      out += trimmed.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (char !== ':') {
      out += char;
      i += 1;
      continue;
    }
    if (trimmed[i + 1] === ':') return null;
    const name = /^[a-z-]+/i.exec(trimmed.slice(i + 1))?.[0]?.toLowerCase() ?? '';
    let end = i + 1 + name.length;
    let argument: string | null = null;
    if (trimmed[end] === '(') {
      const close = matchingClose(trimmed, end);
      if (close < 0) return null;
      argument = trimmed.slice(end + 1, close);
      end = close + 1;
    }
    if (name === 'not' && argument !== null) {
      const negated = argument.split(',').map((part) => part.trim().toLowerCase());
      if (negated.every((part) => part.startsWith(':') && DYNAMIC_PSEUDO.has(part.slice(1)))) {
        i = end;
        continue;
      }
    }
    if (!STRUCTURAL_PSEUDO.has(name)) return null;
    if (argument !== null && /::|:(?:before|after|first-line|first-letter)\b/i.test(argument)) return null;
    out += trimmed.slice(i, end);
    i = end;
  }
  const result = out.trim();
  return result && !/[>+~,]$/.test(result) ? result : null;
}

/** Approximate specificity: ids, then classes/attributes/pseudo-classes, then type names. */
export function specificity(selector: string): [number, number, number] {
  let ids = 0;
  let classes = 0;
  let types = 0;
  let i = 0;
  let boundary = true;
  while (i < selector.length) {
    const char = selector[i]!;
    if (char === '"' || char === "'") {
      i = skipString(selector, i);
      boundary = false;
      continue;
    }
    if (char === '[') {
      const end = selector.indexOf(']', i);
      classes += 1;
      i = end < 0 ? selector.length : end + 1;
      boundary = false;
      continue;
    }
    if (char === '#') ids += 1;
    else if (char === '.') classes += 1;
    else if (char === ':') {
      const double = selector[i + 1] === ':';
      const start = i + (double ? 2 : 1);
      const name = /^[a-z-]+/i.exec(selector.slice(start))?.[0]?.toLowerCase() ?? '';
      let end = start + name.length;
      if (double) types += 1;
      else if (name === 'not' || name === 'is' || name === 'has') {
        // Counted by the selector inside the parentheses.
        i = end + 1;
        boundary = true;
        continue;
      } else classes += 1;
      if (selector[end] === '(') {
        const close = matchingClose(selector, end);
        end = close < 0 ? selector.length : close + 1;
      }
      i = end;
      boundary = false;
      continue;
    } else if (/[\s>+~,()]/.test(char)) {
      boundary = true;
      i += 1;
      continue;
    } else if (boundary && /[a-z]/i.test(char)) types += 1;
    boundary = false;
    i += 1;
  }
  return [ids, classes, types];
}

/** The tag, id and classes of the selector's last compound when it has nothing else, else null. */
export function subjectOf(selector: string): Subject | null {
  const compound = selector.split(/[\s>+~]+/).at(-1) ?? '';
  if (!/^(?:[a-z][a-z0-9-]*|\*)?(?:[#.][a-z0-9_-]+)*$/i.test(compound)) return null;
  const subject: Subject = { tag: null, id: null, classes: [] };
  for (const part of compound.match(/[#.]?[a-z0-9_*-]+/gi) ?? []) {
    if (part.startsWith('#')) subject.id = part.slice(1);
    else if (part.startsWith('.')) subject.classes.push(part.slice(1));
    else if (part !== '*') subject.tag = part.toLowerCase();
  }
  return subject;
}
