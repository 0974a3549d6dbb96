import { describe, expect, it } from 'vitest';
import { MAX_READABILITY_DEPTH, nestingDepth, parseHtml, parseHtmlDocument } from './html.ts';

const encode = (html: string): Uint8Array => new TextEncoder().encode(html);
const parse = (html: string, charset: string | null = null) => parseHtml(encode(html), charset);

const paragraph = (topic: string): string =>
  `<p>${topic} is described here at some length so that the page carries enough ordinary prose for a reader to take it as the main content of the article, not a snippet.</p>`;

const ARTICLE = `<!doctype html><html><head><title>Cairns of the North</title></head><body>
<nav><a href="/">Home</a></nav>
<article>
<h1>Cairns of the North</h1>${paragraph('The history of cairns')}
<h2>How cairns are built</h2>${paragraph('Building a cairn')}
<ul><li>Choose flat stones</li><li>Build a wide base<ul><li>Lock the stones</li></ul></li></ul>
<h3>Heights</h3>
<table><tr><th>Region</th><th>Height</th></tr><tr><td>Highlands</td><td>1.5 m</td></tr></table>
${paragraph('Leaving cairns alone')}
</article></body></html>`;

describe('parseHtml', () => {
  it('keeps headings as # lines, lists as - items, table rows as cells joined by |', () => {
    const doc = parseHtml(encode(ARTICLE), null);
    expect(doc.kind).toBe('html');
    const lines = doc.text.split('\n');
    expect(lines).toContain('# Cairns of the North');
    expect(lines).toContain('## How cairns are built');
    expect(lines).toContain('### Heights');
    expect(lines).toContain('- Choose flat stones');
    expect(lines).toContain('  - Lock the stones');
    expect(lines).toContain('Region | Height');
    expect(lines).toContain('Highlands | 1.5 m');
    expect(doc.text).toMatch(/main content of the article, not a snippet\.\n\n## How cairns are built/);
    expect(doc.title).toBe('Cairns of the North');
  });

  it('uses Readability main content and says so, dropping navigation', () => {
    const doc = parse(ARTICLE);
    expect(doc.transformations).toContain('HTML_MAIN_CONTENT');
    expect(doc.text).not.toContain('Home');
  });

  it('reads a page nested past MAX_READABILITY_DEPTH from its body, and says why (issue 40)', () => {
    // 2,000 unclosed <div>s (10 KB) held Readability for 30 s: its scoring is quadratic in depth.
    const bomb = `<html><body>${'<div>'.repeat(2_000)}${paragraph('A deeply nested note')}</body></html>`;
    const doc = parse(bomb);
    expect(doc.transformations).toContain('HTML_TOO_DEEP_FOR_MAIN_CONTENT');
    expect(doc.transformations).not.toContain('HTML_MAIN_CONTENT');
    expect(doc.text).toContain('A deeply nested note is described here');
    // The same article one level inside the bound still gets its main content.
    const wrapped = ARTICLE.replace('<article>', `${'<div>'.repeat(MAX_READABILITY_DEPTH - 5)}<article>`);
    expect(nestingDepth(parseHtmlDocument(wrapped).body)).toBeLessThanOrEqual(MAX_READABILITY_DEPTH);
    expect(parse(wrapped).transformations).toContain('HTML_MAIN_CONTENT');
  });

  it('falls back to the body when there is no main content', () => {
    const doc = parse('<html><body><p>Short note.</p></body></html>');
    expect(doc.text).toBe('Short note.');
    expect(doc.transformations).not.toContain('HTML_MAIN_CONTENT');
  });

  it('names each kind of removal it made, and only those', () => {
    const doc = parse(`<html><head><style>p{}</style><script>alert(1)</script></head><body>
      <!-- a comment --><p>Visible text.</p>
      <p hidden>attr hidden</p><p style="display: none">display none</p>
      <p style="visibility:hidden">visibility hidden</p><p style="font-size:0">font zero</p>
      <p style="opacity: 0;">opacity zero</p><p aria-hidden="true">aria hidden</p>
      <template><p>template</p></template><noscript>noscript text</noscript>
      <p style="font-size:0.9em">small but visible</p></body></html>`);
    expect(doc.transformations).toEqual(
      expect.arrayContaining(['SCRIPTS_REMOVED', 'STYLES_REMOVED', 'HIDDEN_REMOVED', 'COMMENTS_REMOVED']),
    );
    for (const gone of [
      'alert',
      'attr hidden',
      'display none',
      'visibility',
      'font zero',
      'opacity',
      'aria',
      'template',
      'noscript',
      'a comment',
    ]) {
      expect(doc.text).not.toContain(gone);
    }
    expect(doc.text).toContain('Visible text.');
    expect(doc.text).toContain('small but visible');

    const plain = parse('<html><body><p>Nothing to remove.</p></body></html>');
    expect(plain.transformations).toEqual([]);
  });

  it('strips zero-width and bidi control characters from the final text', () => {
    const doc = parse('<p>pass\u200Bword\u00AD and \u202Egnirts\u202C\u2066x\u2069 \uFEFFend\u200F</p>');
    expect(doc.text).toBe('password and gnirtsx end');
    expect(doc.transformations).toEqual(
      expect.arrayContaining(['ZERO_WIDTH_REMOVED', 'BIDI_CONTROLS_REMOVED']),
    );
  });

  it('honours the Content-Type charset, then <meta charset>, and defaults to UTF-8', () => {
    const latin1 = Uint8Array.from([
      ...Buffer.from('<p>caf', 'latin1'),
      0xe9,
      ...Buffer.from('</p>', 'latin1'),
    ]);
    expect(parseHtml(latin1, 'iso-8859-1').text).toBe('café');
    const withMeta = Uint8Array.from([
      ...Buffer.from('<html><head><meta charset="windows-1252"></head><body><p>caf'),
      0xe9,
      0x80,
      ...Buffer.from('</p></body></html>'),
    ]);
    expect(parseHtml(withMeta, null).text).toBe('café€');
    expect(parseHtml(encode('<p>café ✓</p>'), null).text).toBe('café ✓');
  });

  it('recognises a sign-in page', () => {
    const doc = parse(`<html><head><title>Sign in</title></head><body><h1>Sign in</h1>
      <form method="post"><input name="user"><input type="password" name="pw"><button>Log in</button></form></body></html>`);
    expect(doc.surface).toBe('SIGN_IN');
  });

  it('recognises an app shell', () => {
    const doc = parse(
      '<html><head><script src="/bundle.js"></script></head><body><div id="root"></div></body></html>',
    );
    expect(doc.surface).toBe('APP_SHELL');
    expect(parse(ARTICLE).surface).toBeNull();
  });

  it('keeps an article with a login box in the sidebar as an article', () => {
    const doc = parse(ARTICLE.replace('<nav>', '<nav><form><input type="password"></form>'));
    expect(doc.surface).toBeNull();
  });

  it('takes og:title when there is no <title>', () => {
    expect(
      parse('<html><head><meta property="og:title" content="OG name"></head><body><p>x</p></body></html>')
        .title,
    ).toBe('OG name');
  });
});

describe('parseHtml surfaces', () => {
  it('does not call a short static page with a script an app shell', () => {
    const doc = parse(
      '<html><head><script src="/analytics.js"></script></head><body><p>Opening hours: Monday to Friday, nine to five, closed on public holidays.</p></body></html>',
    );
    expect(doc.surface).toBeNull();
  });

  it('ignores <title> elements inside inline SVG', () => {
    const doc = parse('<html><body><svg><title>icon</title></svg><p>x</p></body></html>');
    expect(doc.title).toBeNull();
  });
});
