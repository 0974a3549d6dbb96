/**
 * A bound on element nesting, applied to the markup before it is parsed (issue 40). linkedom's
 * parse time grows faster than the input with nesting depth (200,000 unclosed `<div>`s, 1 MB:
 * 11 s, against 0.3 s for as many siblings), so a hostile page is flattened first: tags that would
 * open past MAX_HTML_DEPTH are dropped with their matching end tags, and their text stays where
 * it was. One pass over the string, linear in its length. Ordinary pages nest a few dozen levels
 * and come back unchanged (the same string).
 */

/** Far past any real page, far below what makes the parser slow. */
export const MAX_HTML_DEPTH = 512;

/** Elements that never hold children. */
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/**
 * Elements a parser closes by itself when a sibling of their kind starts (`<p>`, `<li>`, table
 * cells, …): old pages leave thousands unclosed, and counting each as a level would flatten them
 * for nothing. They are not counted as nesting; the bound still holds for everything else.
 */
const SELF_CLOSING_SIBLINGS = new Set([
  'p',
  'li',
  'dt',
  'dd',
  'tr',
  'td',
  'th',
  'option',
  'optgroup',
  'rb',
  'rt',
  'rp',
  'thead',
  'tbody',
  'tfoot',
  'colgroup',
  'caption',
]);

/** Comments, raw-text elements (their content is not markup) and tags, in document order. */
const TOKEN =
  /<!--[\s\S]*?(?:-->|$)|<(script|style|textarea|title|xmp|noembed|noframes)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)|<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)\b[^>]*>/gi;

/** The markup with nesting past `maxDepth` flattened, and whether anything was. */
export function flattenDeepNesting(
  html: string,
  maxDepth = MAX_HTML_DEPTH,
): { html: string; flattened: boolean } {
  // Cheap exit: a page with fewer start tags than the bound cannot nest past it.
  let opens = 0;
  for (let at = html.indexOf('<'); at >= 0 && opens <= maxDepth; at = html.indexOf('<', at + 1)) opens++;
  if (opens <= maxDepth) return { html, flattened: false };

  const out: string[] = [];
  let last = 0;
  let depth = 0;
  /** Open elements dropped past the bound, by name, so their end tags are dropped too. */
  const dropped = new Map<string, number>();
  let flattened = false;
  for (const match of html.matchAll(TOKEN)) {
    const name = match[3]?.toLowerCase();
    if (name === undefined) continue; // a comment or raw-text element: kept as it is
    const closing = match[2] === '/';
    const at = match.index;
    const tag = match[0];
    if (VOID.has(name) || SELF_CLOSING_SIBLINGS.has(name) || (!closing && tag.endsWith('/>'))) continue;
    if (!closing) {
      if (depth >= maxDepth) {
        dropped.set(name, (dropped.get(name) ?? 0) + 1);
        out.push(html.slice(last, at));
        last = at + tag.length;
        flattened = true;
      } else {
        depth++;
      }
      continue;
    }
    const owed = dropped.get(name) ?? 0;
    if (owed > 0) {
      dropped.set(name, owed - 1);
      out.push(html.slice(last, at));
      last = at + tag.length;
    } else if (depth > 0) {
      depth--;
    }
  }
  if (!flattened) return { html, flattened: false };
  out.push(html.slice(last));
  return { html: out.join(''), flattened: true };
}
