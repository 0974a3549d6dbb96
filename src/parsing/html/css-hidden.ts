/**
 * Elements hidden by the page's own stylesheets (`<style>` elements): `.x{display:none}`, the
 * screen-reader-only pattern, off-screen text, from the rules css-parse.ts reads (top level and
 * `@media screen`/`all`; conditional `@media` rules only reveal). The cascade is approximated: an element a
 * later or more specific rule (or its own style attribute) reveals again is kept. Everything is
 * bounded, and a rule that would hide most of the page is not applied: a page that hides itself
 * with CSS usually reveals itself with script, and losing the article is worse than keeping a
 * hidden line.
 */
import {
  type CssEntry,
  type Declarations,
  MAX_CSS_CHARS,
  mediaApplies,
  parseDeclarations,
  parseStylesheet,
} from './css-parse.ts';
import type { Subject } from './css-selectors.ts';

/** A rule is not applied when, with the rules applied before it, it would remove more than this share of the body's text. */
const MAX_REMOVED_SHARE = 0.5;
/** At most this many selectors are looked up in the document… */
const MAX_QUERIES = 500;
/** …and fewer on a large one: queries × elements stays under this. */
const MAX_QUERY_VISITS = 3_000_000;
/** At most this many `matches` calls are spent checking whether a hidden element is revealed again. */
const MAX_REVEAL_CHECKS = 3_000;
const MAX_VALUE_CHARS = 100;
/** Milliseconds one page's stylesheet may spend hiding elements. */
const CSS_TIME_BUDGET_MS = 250;
/** Hiding properties a descendant inherits and can set back. */
const INHERITED = new Set(['visibility', 'font-size', 'text-indent']);

/** A reason a rule hides content: the properties that, declared otherwise by a winning rule, undo it. */
interface HidingReason {
  properties: string[];
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
