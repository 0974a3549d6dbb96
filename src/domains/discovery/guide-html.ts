/**
 * `/guide` for a browser (`Accept: text/html`): the same Markdown the agents read, rendered by a
 * small converter for the few constructs the guide uses (headings, lists, indented code, inline
 * code, links). Everything is escaped first; nothing in the guide is taken as HTML.
 */

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function inline(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(https?:\/\/[^\s<)`'"]+[^\s<)`'".,;:])/g, '<a href="$1">$1</a>');
}

export function guideAsHtml(markdown: string): string {
  const out: string[] = [];
  let list: 'ul' | 'ol' | null = null;
  let code: string[] | null = null;
  let paragraph: string[] = [];
  const flushParagraph = () => {
    if (paragraph.length > 0) out.push(`<p>${inline(paragraph.join(' '))}</p>`);
    paragraph = [];
  };
  const closeList = () => {
    if (list) out.push(`</${list}>`);
    list = null;
  };
  const flushCode = () => {
    if (code) out.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
    code = null;
  };
  for (const line of markdown.split('\n')) {
    if (/^ {4}\S/.test(line) && !list) {
      flushParagraph();
      code ??= [];
      code.push(line.slice(4));
      continue;
    }
    flushCode();
    const heading = /^(#{1,3}) (.*)$/.exec(line);
    const bullet = /^- (.*)$/.exec(line);
    const numbered = /^\d+\. (.*)$/.exec(line);
    if (heading?.[1] && heading[2] !== undefined) {
      flushParagraph();
      closeList();
      out.push(`<h${heading[1].length}>${inline(heading[2])}</h${heading[1].length}>`);
    } else if (bullet || numbered) {
      flushParagraph();
      const kind = bullet ? 'ul' : 'ol';
      if (list !== kind) {
        closeList();
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${inline((bullet ?? numbered)?.[1] ?? '')}</li>`);
    } else if (line.trim() === '') {
      flushParagraph();
      closeList();
    } else if (list && /^\s+\S/.test(line)) {
      // A continuation of the last list item.
      out[out.length - 1] = (out.at(-1) ?? '').replace(/<\/li>$/, ` ${inline(line.trim())}</li>`);
    } else {
      paragraph.push(line.trim());
    }
  }
  flushParagraph();
  flushCode();
  closeList();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Connecting an agent to Cairn</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:.75rem;overflow-x:auto}code{font-size:.9em}</style>
</head><body>
${out.join('\n')}
</body></html>
`;
}
