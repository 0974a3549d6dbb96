/**
 * Reading a page's stylesheets: a small, linear, string-aware reader of the top-level rules (and
 * those inside `@media`), their declarations, and selectors that can be matched statically, with
 * their specificity. Anything it cannot read is skipped; everything is bounded.
 */
import { matchingClose, skipString, splitTopLevel, stripComments } from './css-scan.ts';
import { type Subject, specificity, staticSelector, subjectOf } from './css-selectors.ts';

/** At most this much CSS is read per page… */
export const MAX_CSS_CHARS = 200_000;
/** …and at most this many rules (plain rules and at-rule blocks alike). */
export const MAX_CSS_RULES = 2_000;
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
