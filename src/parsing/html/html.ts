/**
 * HTML → sanitised readable text: decode, remove what a reader would not see, take the main
 * content (Readability) or else the body, render it with navigable structure, then strip
 * invisible characters and annotate instruction-like content.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { decodeText } from '../content-type.ts';
import { detectInstructions } from '../instructions/instructions.ts';
import { classifySurface, readSurfaceSignals } from '../surface.ts';
import type { HiddenText, ParsedDocument } from '../types.ts';
import { flattenDeepNesting } from './depth.ts';
import { cleanTitle, stripInvisible } from './invisible.ts';
import { type HtmlDocument, sanitiseDocument } from './sanitise.ts';
import { HEADING_LEVEL_ATTRIBUTE, renderText } from './text.ts';

/** Readability's main content is used only when it holds at least this much text… */
const MAIN_CONTENT_MIN_CHARS = 200;
/** …and at least this share of the body's text, so a data page is not cut down to a caption. */
const MAIN_CONTENT_MIN_SHARE = 0.25;
const MAX_TITLE_CHARS = 500;
const MAX_READABILITY_ELEMENTS = 50_000;
/**
 * Readability's scoring walks each candidate's ancestors, so its time grows with the square of
 * the nesting: 400 unclosed `<div>`s (2 KB) took 0.6 s and 2,000 (10 KB) 30 s (issue 40). No
 * article nests this deep (real pages stay under about 40 levels); past it the body is read,
 * which is linear in its size and flattens past html-text.ts's own depth bound.
 */
export const MAX_READABILITY_DEPTH = 64;

/** Puts `<body>` where a browser would imply it, at the first place a body could start. */
function withBody(html: string): string {
  if (/<body[\s>]/i.test(html)) return html;
  const source = /<html[\s>]/i.test(html) ? html : `<html>${html.replace(/^\s*<!doctype[^>]*>/i, '')}</html>`;
  const anchor = /<\/head\s*>/i.exec(source) ?? /<html[^>]*>/i.exec(source);
  const start = anchor ? anchor.index + anchor[0].length : 0;
  const end = source.search(/<\/html\s*>/i);
  const close = end >= start ? end : source.length;
  return `${source.slice(0, start)}<body>${source.slice(start, close)}</body>${source.slice(close)}`;
}

/**
 * Puts `<head>` where a browser would imply it when a page has `<body>` but no `<head>` (SingleFile
 * captures omit it): linkedom would otherwise leave the body empty and its content after it.
 */
function withHead(html: string): string {
  if (/<head[\s>]/i.test(html) || !/<body[\s>]/i.test(html)) return html;
  const anchor = /<html[^>]*>/i.exec(html) ?? /^\s*<!doctype[^>]*>/i.exec(html);
  const at = anchor ? anchor.index + anchor[0].length : 0;
  return `${html.slice(0, at)}<head>${html.slice(at)}`;
}

/**
 * Parses decoded HTML into a linkedom document. linkedom does not imply missing `<html>`,
 * `<head>` or `<body>` as browsers do (a bare fragment would have no body), so they are supplied first.
 */
export function parseHtmlDocument(html: string): HtmlDocument {
  return parseBoundedDocument(flattenDeepNesting(html).html);
}

/** parseHtmlDocument for markup already through flattenDeepNesting. */
function parseBoundedDocument(html: string): HtmlDocument {
  return parseHTML(withBody(withHead(html))).document as unknown as HtmlDocument;
}

/** Decodes HTML bytes (BOM, then the Content-Type charset, then `<meta charset>`, else UTF-8). */
export function decodeHtml(bytes: Uint8Array, charset: string | null): string {
  return decodeText(bytes, charset, true);
}

/** The document's <title> and og:title as written; the caller cleans them. */
function readTitles(document: HtmlDocument): { title: string; og: string } {
  // An inline <svg> has <title> elements of its own; only the document's title names the page.
  const element = Array.from(document.querySelectorAll('title')).find(
    (candidate) => !candidate.closest('svg'),
  );
  const title = element?.textContent ?? '';
  const og = document.querySelector('meta[property="og:title"]')?.getAttribute('content') ?? '';
  return { title, og };
}

/** The page title without invisible characters: <title>, else og:title, else null. */
function chooseTitle(
  titles: { title: string; og: string },
  transformations: string[],
  hiddenTexts: string[],
): string | null {
  return (
    cleanTitle(titles.title, MAX_TITLE_CHARS, transformations, hiddenTexts) ??
    cleanTitle(titles.og, MAX_TITLE_CHARS, transformations, hiddenTexts)
  );
}

/** Readability rewrites h1 as h2; remember each heading's real level so the text keeps it. */
function markHeadingLevels(document: HtmlDocument): void {
  for (const heading of Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6'))) {
    heading.setAttribute(HEADING_LEVEL_ATTRIBUTE, heading.tagName.slice(1));
  }
}

/** The main content's text, or null when Readability finds none worth preferring to the body. */
function readMainContent(document: HtmlDocument, bodyChars: number): string | null {
  try {
    const article = new Readability(document, {
      serializer: (node: Node) => node,
      // Past this, Readability throws and the body is used: its scoring is too costly on huge trees.
      maxElemsToParse: MAX_READABILITY_ELEMENTS,
    }).parse();
    if (!article?.content) return null;
    const text = renderText(article.content);
    if (text.length < MAIN_CONTENT_MIN_CHARS || text.length < bodyChars * MAIN_CONTENT_MIN_SHARE) return null;
    return text;
  } catch {
    // Readability gives up on some malformed trees; the body text is still a faithful reading.
    return null;
  }
}

/** The document as a reader sees it: parsed, sanitised, headings marked. */
function prepare(html: string) {
  const document = parseBoundedDocument(html);
  const titles = readTitles(document);
  const signals = readSurfaceSignals(document);
  const sanitised = sanitiseDocument(document);
  markHeadingLevels(document);
  return { document, titles, signals, sanitised };
}

/** The deepest element nesting under `root`, counted without recursion (hostile trees are deep). */
export function nestingDepth(root: Node): number {
  let deepest = 0;
  const stack: Array<{ node: Node; depth: number }> = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > deepest) deepest = depth;
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 1) stack.push({ node: child, depth: depth + 1 });
    }
  }
  return deepest;
}

/** Visible characters of the body, whitespace runs counted once: cheap enough to take before Readability. */
function visibleChars(document: HtmlDocument): number {
  return ((document.body ?? document).textContent ?? '').replace(/\s+/g, ' ').trim().length;
}

/**
 * Parses an HTML body into a ParsedDocument (kind 'html'). Readability rewrites the tree it reads,
 * so it runs on the prepared document itself, and the body is rendered from a fresh parse only
 * when its main content is not preferred: one parse on the common path, two on the rare one.
 */
export function parseHtml(bytes: Uint8Array, charset: string | null): ParsedDocument {
  const bounded = flattenDeepNesting(decodeHtml(bytes, charset));
  const html = bounded.html;
  const { document, titles, signals, sanitised } = prepare(html);
  const bodyChars = visibleChars(document);
  const firstHeading = (document.querySelector('h1')?.textContent ?? '').replace(/\s+/g, ' ').trim();
  const transformations = [...sanitised.transformations];
  if (bounded.flattened) transformations.push('HTML_NESTING_FLATTENED');
  const tooDeep = nestingDepth(document.body ?? document) > MAX_READABILITY_DEPTH;
  if (tooDeep) transformations.push('HTML_TOO_DEEP_FOR_MAIN_CONTENT');
  const mainText = tooDeep ? null : readMainContent(document, bodyChars);
  let text: string;
  if (mainText !== null) {
    text = /^# /m.test(mainText) || !firstHeading ? mainText : `# ${firstHeading}\n\n${mainText}`;
    transformations.push('HTML_MAIN_CONTENT');
  } else {
    // Readability rewrote the tree it read; a tree it never read is still the page as parsed.
    const fresh = tooDeep ? document : prepare(html).document;
    text = renderText(fresh.body ?? fresh);
  }
  const cleaned = stripInvisible(text);
  transformations.push(...cleaned.transformations);
  // Hidden elements, comments and tag characters (here and in the title) are read for instructions too.
  const hiddenTexts: HiddenText[] = [];
  const tagged = (text: string): HiddenText => ({ text, source: 'TAG_CHARACTERS' });
  for (const hidden of sanitised.hidden) {
    const stripped = stripInvisible(hidden.text);
    hiddenTexts.push({ text: stripped.text, source: hidden.source }, ...stripped.hiddenTexts.map(tagged));
  }
  hiddenTexts.push(...cleaned.hiddenTexts.map(tagged));
  const titleHidden: string[] = [];
  const title = chooseTitle(titles, transformations, titleHidden);
  hiddenTexts.push(...titleHidden.map(tagged));
  const instructions = detectInstructions(cleaned.text, hiddenTexts);
  return {
    kind: 'html',
    text: cleaned.text,
    title,
    pages: [],
    transformations,
    flags: instructions.flags,
    instructionSpans: instructions.spans,
    surface: classifySurface(signals, bodyChars),
  };
}
