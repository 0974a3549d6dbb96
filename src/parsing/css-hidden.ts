/**
 * Elements hidden by the page's own stylesheets (`<style>` elements): `.x{display:none}`, the
 * screen-reader-only pattern, off-screen text. A small, linear, string-aware reader takes the
 * top-level rules (and those inside `@media screen` / `@media all`); every other at-rule block is
 * skipped, and anything it cannot read is ignored. The cascade is approximated: an element a
 * later or more specific rule (or its own style attribute) reveals again is kept. Everything is
 * bounded, and a rule that would hide most of the page is not applied: a page that hides itself
 * with CSS usually reveals itself with script, and losing the article is worse than keeping a
 * hidden line.
 */

/** At most this much CSS is read per page… */
export const MAX_CSS_CHARS = 200_000;
/** …and at most this many rules (plain rules and at-rule blocks alike). */
export const MAX_CSS_RULES = 2_000;
/** A rule is not applied when, with the rules applied before it, it would remove more than this share of the body's text. */
const MAX_REMOVED_SHARE = 0.5;
/** At most this many selectors are looked up in the document… */
const MAX_QUERIES = 500;
/** …and fewer on a large one: queries × elements stays under this. */
const MAX_QUERY_VISITS = 3_000_000;
/** At most this many `matches` calls are spent checking whether a hidden element is revealed again. */
const MAX_REVEAL_CHECKS = 3_000;
const MAX_SELECTOR_CHARS = 1_000;
const MAX_VALUE_CHARS = 100;
const MAX_MEDIA_DEPTH = 3;

interface Declaration {
  value: string;
  important: boolean;
}

type Declarations = Map<string, Declaration>;

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

interface Subject {
  tag: string | null;
  id: string | null;
  classes: string[];
}

/** A reason a rule hides content: the properties that, declared otherwise by a winning rule, undo it. */
interface HidingReason {
  properties: string[];
}

// ---------------------------------------------------------------------------------------------
// Reading the stylesheet

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

/** Index of the `}` closing the block opened at `open`, or -1 when it is never closed. */
function blockEnd(css: string, open: number): number {
  let depth = 1;
  let i = open + 1;
  while (i < css.length) {
    const char = css[i];
    if (char === '"' || char === "'") {
      i = skipString(css, i);
      continue;
    }
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (char === '{') depth += 1;
    else if (char === '}') {
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
function parseDeclarations(body: string): Declarations {
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
      const close = blockEnd(body, open);
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
function mediaApplies(query: string): boolean {
  const parts = query
    .toLowerCase()
    .split(',')
    .map((part) => part.trim().replace(/\s+/g, ' '));
  return parts.some((part) => part === '' || /^(?:only )?(?:screen|all)$/.test(part));
}

const DYNAMIC_PSEUDO = new Set(['hover', 'focus', 'focus-within', 'focus-visible', 'active', 'target']);
/** Milliseconds one page's stylesheet may spend hiding elements. */
const CSS_TIME_BUDGET_MS = 250;
/** Hiding properties a descendant inherits and can set back. */
const INHERITED = new Set(['visibility', 'font-size', 'text-indent']);

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

/** Index of the `)` closing the parenthesis at `open`, or -1. */
function parenEnd(text: string, open: number): number {
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
    if (char === '(') depth += 1;
    else if (char === ')') {
      depth -= 1;
      if (depth === 0) return i;
    }
    i += 1;
  }
  return -1;
}

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
      const close = parenEnd(trimmed, end);
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
        const close = parenEnd(selector, end);
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
function subjectOf(selector: string): Subject | null {
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

/** The tag, id and classes of an element, for `mayMatch`. */
interface ElementKeys {
  tag: string;
  id: string | null;
  classes: Set<string>;
}

function elementKeys(element: Element): ElementKeys {
  return {
    tag: element.tagName.toLowerCase(),
    id: element.getAttribute('id'),
    classes: new Set((element.getAttribute('class') ?? '').split(/\s+/)),
  };
}

/** False when the element cannot be the selector's subject; true when it may be. */
function mayMatch(keys: ElementKeys, subject: Subject | null): boolean {
  if (!subject) return true;
  if (subject.tag && keys.tag !== subject.tag) return false;
  if (subject.id && keys.id !== subject.id) return false;
  return subject.classes.every((name) => keys.classes.has(name));
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
      const close = blockEnd(source, i);
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

// ---------------------------------------------------------------------------------------------
// What hides

/** A length in px (em/rem taken as 16px, pt as 4/3 px), or null; a bare number only when zero. */
function lengthPx(value: string): number | null {
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(px|em|rem|pt|%|vw|vh)?$/.exec(value.trim());
  if (!match) return null;
  const number = Number(match[1]);
  const unit = match[2] ?? '';
  if (number === 0) return 0;
  if (unit === 'px') return number;
  if (unit === 'em' || unit === 'rem') return number * 16;
  if (unit === 'pt') return (number * 4) / 3;
  return null;
}

const isZero = (value: string): boolean => /^[+-]?(?:0+\.?0*|\.0+)(?:[a-z]+|%)?$/.test(value.trim());

/** Whether `value` of `property`, on its own, is one of the hiding values this module knows. */
export function propertyHides(property: string, value: string): boolean {
  // Real hiding values are short; a long one is not read (and the regexes stay linear).
  if (value.length > MAX_VALUE_CHARS) return false;
  switch (property) {
    case 'display':
      return value === 'none';
    case 'visibility':
      return value === 'hidden' || value === 'collapse';
    case 'font-size':
    case 'opacity':
      return isZero(value);
    case 'position':
      return value === 'absolute' || value === 'fixed';
    case 'width':
    case 'height': {
      const px = lengthPx(value);
      return px !== null && px <= 1;
    }
    case 'overflow':
      return /^(?:hidden|clip)(?:\s+(?:hidden|clip))?$/.test(value);
    case 'clip':
      return value !== 'auto' && value !== 'initial' && value !== 'unset';
    case 'clip-path':
      return value !== 'none' && value !== 'initial' && value !== 'unset';
    case 'text-indent':
    case 'left':
    case 'top': {
      const px = lengthPx(value);
      return px !== null && px <= -999;
    }
    default:
      return false;
  }
}

/** The ways this rule's declarations hide content (empty when they do not). */
export function hidingReasons(declarations: Declarations): HidingReason[] {
  const hides = (property: string): boolean => {
    const declaration = declarations.get(property);
    return declaration !== undefined && propertyHides(property, declaration.value);
  };
  const reasons: HidingReason[] = [];
  for (const property of ['display', 'visibility', 'font-size', 'opacity', 'text-indent']) {
    if (hides(property)) reasons.push({ properties: [property] });
  }
  if (hides('position')) {
    if (hides('width') && hides('height') && (hides('overflow') || hides('clip') || hides('clip-path'))) {
      reasons.push({ properties: ['position', 'width', 'height'] });
    }
    const offscreen = ['left', 'top'].filter(hides);
    if (offscreen.length > 0) reasons.push({ properties: ['position', ...offscreen] });
  }
  return reasons;
}

// ---------------------------------------------------------------------------------------------
// Applying it to the document

function compareSpecificity(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Whether a declaration from `reveal` overrides the hiding declaration from `hide`. */
function wins(reveal: CssEntry, revealImportant: boolean, hide: CssEntry, hideImportant: boolean): boolean {
  if (revealImportant !== hideImportant) return revealImportant;
  const bySpecificity = compareSpecificity(reveal.specificity, hide.specificity);
  return bySpecificity > 0 || (bySpecificity === 0 && reveal.order > hide.order);
}

const normalisedText = (node: Node): string => (node.textContent ?? '').replace(/\s+/g, ' ').trim();

function inlineDeclarations(element: Element): Declarations | null {
  const style = element.getAttribute('style');
  return style ? parseDeclarations(style) : null;
}

/** Every property a hiding reason can name. */
const REVEAL_PROPERTIES = new Set([
  'display',
  'visibility',
  'font-size',
  'opacity',
  'text-indent',
  'position',
  'width',
  'height',
  'left',
  'top',
]);

interface RevealBudget {
  checks: number;
}

/**
 * Whether the element, hidden by `hide`, is shown again by its style attribute or by another
 * rule that wins the cascade. When the check budget runs out the element counts as revealed:
 * keeping text is the safe side.
 */
function isRevealed(
  element: Element,
  hide: CssEntry,
  reasons: HidingReason[],
  revealers: Map<string, CssEntry[]>,
  budget: RevealBudget,
): boolean {
  const inline = inlineDeclarations(element);
  const keys = elementKeys(element);
  const overridden = (reason: HidingReason): boolean => {
    for (const property of reason.properties) {
      const hideImportant = hide.declarations.get(property)?.important ?? false;
      const own = inline?.get(property);
      if (own && !propertyHides(property, own.value) && (own.important || !hideImportant)) return true;
      for (const entry of revealers.get(property) ?? []) {
        if (entry === hide) continue;
        const declaration = entry.declarations.get(property)!;
        if (!wins(entry, declaration.important, hide, hideImportant)) continue;
        if (!mayMatch(keys, entry.subject)) continue;
        budget.checks += 1;
        if (budget.checks > MAX_REVEAL_CHECKS) return true;
        try {
          if (element.matches(entry.selector)) return true;
        } catch {
          // A selector linkedom cannot read shows nothing.
        }
      }
    }
    return false;
  };
  // Hidden while any one way of hiding it still holds.
  return reasons.every(overridden);
}

/** The CSS text of the document's `<style>` elements that apply on screen, bounded. */
export function readStylesheets(document: Document): string {
  let css = '';
  for (const style of Array.from(document.querySelectorAll('style'))) {
    if (style.closest('template, noscript')) continue;
    const media = style.getAttribute('media');
    if (media !== null && !mediaApplies(media)) continue;
    css += `${style.textContent ?? ''}\n`;
    if (css.length >= MAX_CSS_CHARS) return css.slice(0, MAX_CSS_CHARS);
  }
  return css;
}

/**
 * Removes the elements the stylesheet `css` hides and returns their texts (whitespace collapsed,
 * empty ones left out), in removal order. Never removes `<html>`, `<head>` or `<body>`, skips a
 * selector that matches one of them, and skips a rule that would take the removed text past
 * half of the body's.
 */
export function removeCssHidden(document: Document, css: string): { removed: number; texts: string[] } {
  const texts: string[] = [];
  let removed = 0;
  if (!css.trim()) return { removed, texts };
  const root = document.body ?? document.documentElement;
  if (!root) return { removed, texts };
  const entries = parseStylesheet(css);
  const bodyChars = normalisedText(root).length;
  let removedChars = 0;
  let queries = 0;
  const budget: RevealBudget = { checks: 0 };

  // Entries of one rule share their declarations: group them so the share limit is per rule.
  const rules = new Map<number, CssEntry[]>();
  for (const entry of entries) {
    if (entry.revealOnly || hidingReasons(entry.declarations).length === 0) continue;
    const group = rules.get(entry.order);
    if (group) group.push(entry);
    else rules.set(entry.order, [entry]);
  }

  if (rules.size === 0) return { removed, texts };
  // For each property a hiding rule relies on, the entries that declare it with a showing value.
  const revealers = new Map<string, CssEntry[]>();
  for (const entry of entries) {
    for (const [property, declaration] of entry.declarations) {
      if (!REVEAL_PROPERTIES.has(property) || propertyHides(property, declaration.value)) continue;
      const list = revealers.get(property);
      if (list) list.push(entry);
      else revealers.set(property, [entry]);
    }
  }
  const elementCount = Math.max(1, document.querySelectorAll('*').length);
  const maxQueries = Math.min(MAX_QUERIES, Math.floor(MAX_QUERY_VISITS / elementCount));

  // A wall-clock budget on top of the counted ones: selector matching can cost far more than one
  // visit per element, and a page must never hold a parser thread for long. Past it, what is
  // left stays in the text (under-removal is the safe side).
  const deadline = performance.now() + CSS_TIME_BUDGET_MS;
  for (const group of rules.values()) {
    if (performance.now() > deadline) break;
    const reasons = hidingReasons(group[0]!.declarations);
    // visibility, font-size and text-indent are inherited, and a descendant can set them back
    // (`.row{font-size:0} .col{font-size:16px}`): for those, only elements without element
    // children are removed.
    const inheritedOnly = reasons.every((r) => r.properties.every((p) => INHERITED.has(p)));
    const matched = new Map<Element, CssEntry>();
    for (const entry of group) {
      if (queries >= maxQueries) break;
      queries += 1;
      let found: Element[];
      try {
        found = Array.from(document.querySelectorAll(entry.selector));
      } catch {
        continue;
      }
      if (found.some((element) => ['html', 'head', 'body'].includes(element.tagName.toLowerCase()))) continue;
      for (const element of found) {
        if (inheritedOnly && element.children.length > 0) continue;
        if (!matched.has(element) && element.parentNode && root.contains(element))
          matched.set(element, entry);
      }
    }
    const hidden = new Set<Element>();
    for (const [element, entry] of matched) {
      if (!isRevealed(element, entry, reasons, revealers, budget)) hidden.add(element);
    }
    // Only the outermost hidden elements: their text includes their descendants'.
    const outermost: Element[] = [];
    if (performance.now() > deadline) break;
    for (const element of hidden) {
      let ancestor = element.parentElement;
      while (ancestor && ancestor !== root && !hidden.has(ancestor)) ancestor = ancestor.parentElement;
      if (!ancestor || ancestor === root) outermost.push(element);
    }
    if (outermost.length === 0) continue;
    const ruleTexts = outermost.map(normalisedText);
    const ruleChars = ruleTexts.reduce((sum, text) => sum + text.length, 0);
    if (removedChars + ruleChars > bodyChars * MAX_REMOVED_SHARE) continue;
    removedChars += ruleChars;
    for (const [index, element] of outermost.entries()) {
      element.remove();
      removed += 1;
      if (ruleTexts[index]) texts.push(ruleTexts[index]);
    }
  }
  return { removed, texts };
}
