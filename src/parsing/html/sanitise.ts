/**
 * Removes what a human reader of the page would not see (scripts, styles, hidden elements,
 * comments) before any text is taken from it, and remembers what was hidden so the
 * instruction detector can look at it. Elements hidden by the page's `<style>` rules are removed
 * too (see css-hidden.ts), after the elements hidden inline.
 */

import type { HiddenSource, HiddenText } from '../types.ts';
import { readStylesheets, removeCssHidden } from './css-hidden.ts';

/** linkedom's document and nodes are DOM-shaped; these are the only members we rely on. */
export type HtmlDocument = Document;

/** Non-text elements removed without a transformation name: they carry no readable text. */
const NON_TEXT = new Set(['svg', 'canvas', 'iframe', 'object', 'embed', 'audio', 'video', 'math']);

const HIDDEN_STYLE =
  /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)|font-size\s*:\s*0+(?:\.0+)?(?:px|em|rem|pt|%)?|opacity\s*:\s*0+(?:\.0+)?)\s*(?:!important\s*)?(?:;|$)/i;

const MAX_HIDDEN_TEXTS = 200;
const MAX_HIDDEN_CHARS = 2_000;

export interface SanitiseResult {
  /** SCRIPTS_REMOVED, STYLES_REMOVED, HIDDEN_REMOVED, COMMENTS_REMOVED — only those that happened. */
  transformations: string[];
  /** Text of elements and comments removed as hidden (trimmed, bounded), for the instruction detector. */
  hiddenTexts: string[];
  /** The same texts, each with where it was hidden. */
  hidden: HiddenText[];
}

/** Why an element is hidden from a reader, or null when it is not (by its own markup). */
function hiddenBy(element: Element): HiddenSource | null {
  const tag = element.tagName.toLowerCase();
  if (tag === 'template' || tag === 'noscript') return 'HIDDEN_ELEMENT';
  if (element.hasAttribute('hidden')) return 'HIDDEN_ELEMENT';
  if ((element.getAttribute('aria-hidden') ?? '').trim().toLowerCase() === 'true') return 'ARIA_HIDDEN';
  const style = element.getAttribute('style');
  return style !== null && HIDDEN_STYLE.test(style) ? 'HIDDEN_ELEMENT' : null;
}

/** Removes every comment node under `root`; returns the comments' texts, whitespace collapsed. */
function removeComments(root: Node): string[] {
  const comments: Node[] = [];
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === 8) comments.push(child);
      else if (child.nodeType === 1) stack.push(child);
    }
  }
  for (const comment of comments) comment.parentNode?.removeChild(comment);
  return comments.map((comment) => (comment.textContent ?? '').replace(/\s+/g, ' ').trim());
}

/** Mutates `document` in place; the order of the returned transformations is stable. */
export function sanitiseDocument(document: HtmlDocument): SanitiseResult {
  let scripts = false;
  let styles = false;
  let hidden = false;
  const hiddenTexts: string[] = [];
  const kept: HiddenText[] = [];
  const keepHiddenText = (text: string, source: HiddenSource): void => {
    if (!text || hiddenTexts.length >= MAX_HIDDEN_TEXTS) return;
    hiddenTexts.push(text.slice(0, MAX_HIDDEN_CHARS));
    kept.push({ text: text.slice(0, MAX_HIDDEN_CHARS), source });
  };
  // Read before the <style> elements go; applied once scripts, styles and inline-hidden elements are out.
  const stylesheet = readStylesheets(document);
  for (const element of Array.from(document.querySelectorAll('*'))) {
    if (!element.parentNode) continue;
    const tag = element.tagName.toLowerCase();
    if (tag === 'script') {
      scripts = true;
      element.remove();
    } else if (tag === 'style' || (tag === 'link' && /stylesheet/i.test(element.getAttribute('rel') ?? ''))) {
      styles = true;
      element.remove();
    } else if (NON_TEXT.has(tag)) {
      element.remove();
    } else if (tag !== 'html' && tag !== 'body' && tag !== 'head') {
      const source = hiddenBy(element);
      if (source === null) continue;
      hidden = true;
      keepHiddenText((element.textContent ?? '').replace(/\s+/g, ' ').trim(), source);
      element.remove();
    }
  }
  const cssHidden = removeCssHidden(document, stylesheet);
  if (cssHidden.removed > 0) hidden = true;
  for (const text of cssHidden.texts) keepHiddenText(text, 'CSS_HIDDEN');
  // Comments are not shown either; their text is read for instructions like any hidden text.
  const comments = removeComments(document);
  // A single token (`wp:paragraph`, `[if IE]`) instructs no one and would only use up the bound.
  for (const text of comments) if (/\s/.test(text)) keepHiddenText(text, 'HTML_COMMENT');
  const transformations: string[] = [];
  if (scripts) transformations.push('SCRIPTS_REMOVED');
  if (styles) transformations.push('STYLES_REMOVED');
  if (hidden) transformations.push('HIDDEN_REMOVED');
  if (comments.length > 0) transformations.push('COMMENTS_REMOVED');
  return { transformations, hiddenTexts, hidden: kept };
}
