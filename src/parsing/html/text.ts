/**
 * Renders a (sanitised) DOM subtree as plain text with just enough structure for an agent to
 * navigate: `#` heading lines, blank lines between paragraphs, `- ` list items, and table rows
 * as cells joined by ` | `.
 */

const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'hgroup',
  'hr',
  'main',
  'nav',
  'p',
  'section',
  'summary',
]);

const SKIPPED_TAGS = new Set([
  'head',
  'title',
  'meta',
  'link',
  'base',
  'select',
  'option',
  'textarea',
  'img',
]);

/** Set on headings before Readability (which rewrites h1 as h2) so the original level survives. */
export const HEADING_LEVEL_ATTRIBUTE = 'data-cairn-heading';

/** Deeper than this, a subtree is flattened to its text: hostile nesting must not blow the stack. */
const MAX_DEPTH = 200;

const collapse = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Stands for a `<br>` inside inline text until the paragraph is flushed (whitespace is collapsed before). */
const LINE_BREAK = '\uE000';

class TextRenderer {
  readonly blocks: string[] = [];
  private inline = '';

  /** Ends the current paragraph, if it has any text. */
  flush(): void {
    const text = this.inline.split(LINE_BREAK).map(collapse).filter(Boolean).join('\n');
    if (text) this.blocks.push(text);
    this.inline = '';
  }

  renderChildren(node: Node, depth: number): void {
    for (const child of Array.from(node.childNodes)) this.render(child, depth + 1);
  }

  render(node: Node, depth: number): void {
    if (node.nodeType === 3) {
      this.inline += node.nodeValue ?? '';
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    if (depth > MAX_DEPTH) {
      this.inline += ` ${node.textContent ?? ''} `;
      return;
    }
    const element = node as Element;
    const tag = node.nodeType === 1 ? element.tagName.toLowerCase() : '';
    if (SKIPPED_TAGS.has(tag)) return;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      this.flush();
      const text = collapse(element.textContent ?? '');
      const level = Number(element.getAttribute(HEADING_LEVEL_ATTRIBUTE) ?? heading[1]) || Number(heading[1]);
      if (text) this.blocks.push(`${'#'.repeat(Math.min(6, Math.max(1, level)))} ${text}`);
    } else if (tag === 'br') {
      this.inline += LINE_BREAK;
    } else if (tag === 'ul' || tag === 'ol') {
      this.flush();
      const items = this.renderList(element, depth);
      if (items) this.blocks.push(items);
    } else if (tag === 'table') {
      this.flush();
      const rows = this.renderTable(element, depth);
      if (rows) this.blocks.push(rows);
    } else if (tag === 'pre') {
      this.flush();
      const text = (element.textContent ?? '').replace(/^\n+|\s+$/g, '');
      if (text) this.blocks.push(text);
    } else if (BLOCK_TAGS.has(tag) || tag === 'li' || tag === '') {
      this.flush();
      this.renderChildren(node, depth);
      this.flush();
    } else {
      this.inline += ' ';
      this.renderChildren(node, depth);
      this.inline += ' ';
    }
  }

  private renderList(list: Element, depth: number): string {
    const lines: string[] = [];
    for (const item of Array.from(list.children)) {
      const inner = renderBlocks(item, depth + 1);
      if (inner.length === 0) continue;
      const [first = '', ...rest] = inner.join('\n').split('\n');
      lines.push(`- ${first}`, ...rest.map((line) => `  ${line}`));
    }
    return lines.join('\n');
  }

  private renderTable(table: Element, depth: number): string {
    const lines: string[] = [];
    const caption = table.querySelector('caption');
    if (caption && caption.parentNode === table) {
      const text = collapse(caption.textContent ?? '');
      if (text) lines.push(text);
    }
    for (const row of tableRows(table)) {
      const cells = Array.from(row.children)
        .filter((cell) => /^t[hd]$/i.test(cell.tagName))
        .map((cell) => collapse(renderBlocks(cell, depth + 1).join(' ')));
      if (cells.some(Boolean)) lines.push(cells.join(' | '));
    }
    return lines.join('\n');
  }
}

/** The `<tr>` rows that belong to `table` itself (directly or via thead/tbody/tfoot), not to nested tables. */
export function tableRows(table: Element): Element[] {
  const rows: Element[] = [];
  for (const child of Array.from(table.children)) {
    const tag = child.tagName.toLowerCase();
    if (tag === 'tr') rows.push(child);
    else if (tag === 'thead' || tag === 'tbody' || tag === 'tfoot') {
      for (const row of Array.from(child.children)) if (row.tagName.toLowerCase() === 'tr') rows.push(row);
    }
  }
  return rows;
}

function renderBlocks(node: Node, depth: number): string[] {
  const renderer = new TextRenderer();
  renderer.renderChildren(node, depth);
  renderer.flush();
  return renderer.blocks;
}

/** The readable text of `root`: blocks separated by one blank line, no trailing whitespace. */
export function renderText(root: Node): string {
  return renderBlocks(root, 0).join('\n\n');
}
