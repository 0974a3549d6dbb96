/**
 * Reading a page's stylesheets: a small, linear, string-aware reader of the top-level rules (and
 * those inside `@media`), their declarations, and selectors that can be matched statically, with
 * their specificity. Anything it cannot read is skipped; everything is bounded.
 */

/** At most this much CSS is read per page… */
export const MAX_CSS_CHARS = 200_000;
/** …and at most this many rules (plain rules and at-rule blocks alike). */
export const MAX_CSS_RULES = 2_000;
const MAX_SELECTOR_CHARS = 1_000;
const MAX_MEDIA_DEPTH = 3;

export interface Declaration {
  value: string;
  important: boolean;
}

export type Declarations = Map<string, Declaration>;

/** One selector of a rule, with what the cascade needs to compare it. */
export interface CssEntry {
  /** The selector as given to `querySelectorAll` (state pseudo-classes that are always true removed). */
  selector: string;
  /** [ids, classes/attributes/pseudo-classes, types]. */
  specificity: [number, number, number];
  /** Source order of the rule. */
  order: number;
  declarations: Declarations;
  /** What the selector's subject must have, when its last compound is simple: a cheap pre-check. */
  subject: Subject | null;
  /**
   * From a conditional `@media` block (e.g. `min-width`): it may show what another rule hides
   * (mobile-first pages), but never hides anything itself.
   */
  revealOnly?: boolean;
}

export interface Subject {
  tag: string | null;
  id: string | null;
  classes: string[];
}

function stripComments(css: string): string {
  let out = '';
  let index = 0;
  while (index < css.length) {
    const start = css.indexOf('/*', index);
    if (start < 0) {
      out += css.slice(index);
      break;
    }
    out += css.slice(index, start);
    const end = css.indexOf('*/', start + 2);
    if (end < 0) break;
    out += ' ';
    index = end + 2;
  }
  return out;
}

/** Index just past the string starting at `index` (a quote character), escapes honoured. */
function skipString(css: string, index: number): number {
  const quote = css[index];
  let i = index + 1;
  while (i < css.length) {
    const char = css[i];
    if (char === '\\') i += 2;
    else if (char === quote || char === '\n') return i + 1;
    else i += 1;
  }
  return css.length;
}

/**
 * Index of the bracket closing the one at `open` (`{`…`}` or `(`…`)`), stepping over strings and
 * escapes and counting nested pairs; -1 when it is never closed.
 */
function matchingClose(
  text: string,
  open: number,
  opening = text[open],
  closing = opening === '{' ? '}' : ')',
): number {
  let depth = 0;
  let i = open;
  while (i < text.length) {
    const char = text[i];
    if (char === '"' || char === "'") {
      i = skipString(text, i);
      continue;
    }
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (char === opening) depth += 1;
    else if (char === closing) {
      depth -= 1;
      if (depth === 0) return i;
    }
    i += 1;
  }
  return -1;
}

/** Splits on `separator` outside strings, brackets and parentheses. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '"' || char === "'") {
      i = skipString(text, i);
      continue;
    }
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (char === '(' || char === '[' || char === '{') depth += 1;
    else if ((char === ')' || char === ']' || char === '}') && depth > 0) depth -= 1;
    else if (char === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    i += 1;
  }
  parts.push(text.slice(start));
  return parts;
}

/** The declarations of a rule body; nested blocks (CSS nesting) are left out. */
export function parseDeclarations(body: string): Declarations {
  let flat = body;
  if (body.includes('{')) {
    flat = '';
    let index = 0;
    while (index < body.length) {
      const open = body.indexOf('{', index);
      if (open < 0) {
        flat += body.slice(index);
        break;
      }
      // The nested rule's selector is the text since the last `;`; drop it with its block.
      const before = body.slice(index, open);
      flat += before.slice(0, before.lastIndexOf(';') + 1);
      const close = matchingClose(body, open);
      if (close < 0) break;
      index = close + 1;
    }
  }
  const declarations: Declarations = new Map();
  for (const part of splitTopLevel(flat, ';')) {
    const colon = part.indexOf(':');
    if (colon < 0) continue;
    const property = part.slice(0, colon).trim().toLowerCase();
    if (!/^-?[a-z][a-z-]*$/.test(property)) continue;
    let value = part
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    const important = /!\s*important$/.test(value);
    if (important) value = value.replace(/!\s*important$/, '').trim();
    if (!value) continue;
    const previous = declarations.get(property);
    if (previous?.important && !important) continue;
    declarations.set(property, { value, important });
  }
  return declarations;
}

/** `screen`, `all`, `only screen`… (any one of a comma list); conditional queries are not applied. */
export function mediaApplies(query: string): boolean {
  const parts = query
    .toLowerCase()
    .split(',')
    .map((part) => part.trim().replace(/\s+/g, ' '));
  return parts.some((part) => part === '' || /^(?:only )?(?:screen|all)$/.test(part));
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

/** The entries (one per static selector) of every readable rule, in source order, bounded. */
export function parseStylesheet(css: string): CssEntry[] {
  const source = stripComments(css.slice(0, MAX_CSS_CHARS));
  const entries: CssEntry[] = [];
  let rules = 0;
  const read = (from: number, to: number, depth: number, revealOnly = false): void => {
    let prelude = from;
    let i = from;
    while (i < to && rules < MAX_CSS_RULES) {
      const char = source[i];
      if (char === '"' || char === "'") {
        i = skipString(source, i);
        continue;
      }
      if (char === '\\') {
        i += 2;
        continue;
      }
      if (char === ';' || char === '}') {
        // An at-rule statement (@import …;) or stray text: nothing to apply.
        prelude = i + 1;
        i += 1;
        continue;
      }
      if (char !== '{') {
        i += 1;
        continue;
      }
      const close = matchingClose(source, i);
      if (close < 0 || close > to) return;
      rules += 1;
      const head = source.slice(prelude, i).trim();
      if (head.startsWith('@')) {
        const media = /^@media\s+([^{]*)$/i.exec(head);
        if (media && depth < MAX_MEDIA_DEPTH && !/\bprint\b/i.test(media[1]!)) {
          read(i + 1, close, depth + 1, revealOnly || !mediaApplies(media[1]!));
        }
      } else if (head) {
        const declarations = parseDeclarations(source.slice(i + 1, close));
        const order = rules;
        for (const raw of splitTopLevel(head, ',')) {
          const selector = staticSelector(raw);
          if (selector) {
            entries.push({
              selector,
              specificity: specificity(raw),
              order,
              declarations,
              subject: subjectOf(selector),
              ...(revealOnly ? { revealOnly: true } : {}),
            });
          }
        }
      }
      i = close + 1;
      prelude = i;
    }
  };
  read(0, source.length, 0);
  return entries;
}
