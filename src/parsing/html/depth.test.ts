import { describe, expect, it } from 'vitest';
import { flattenDeepNesting, MAX_HTML_DEPTH } from './depth.ts';
import { nestingDepth, parseHtml, parseHtmlDocument } from './html.ts';

const page = (body: string) =>
  `<!doctype html><html><head><title>T</title></head><body>${body}</body></html>`;

describe('flattenDeepNesting (issue 40)', () => {
  it('returns an ordinary page unchanged, the same string', () => {
    const html = page(`${'<section><div>'.repeat(20)}<p>Text</p>${'</div></section>'.repeat(20)}`);
    const out = flattenDeepNesting(html);
    expect(out.flattened).toBe(false);
    expect(out.html).toBe(html);
  });

  it('drops tags past the bound with their end tags, keeping every word in place', () => {
    const n = MAX_HTML_DEPTH + 300;
    const html = page(
      `${'<div><span>'.repeat(n / 2)}deep words${'</span></div>'.repeat(n / 2)}<p>after the bomb</p>`,
    );
    const out = flattenDeepNesting(html);
    expect(out.flattened).toBe(true);
    const document = parseHtmlDocument(html);
    expect(nestingDepth(document.body)).toBeLessThanOrEqual(MAX_HTML_DEPTH + 1);
    // The paragraph after the closed nest is still the body's own child, not swallowed by it.
    expect(document.body.lastElementChild?.textContent).toBe('after the bomb');
    expect(document.body.textContent).toContain('deep words');
  });

  it('does not count elements a parser closes itself, nor markup inside scripts and comments', () => {
    const paragraphs = page('<p>one'.repeat(5_000));
    expect(flattenDeepNesting(paragraphs).flattened).toBe(false);
    const quoted = page(
      `<script>var s = "${'<div>'.repeat(2_000)}";</script><!-- ${'<div>'.repeat(2_000)} --><p>x</p>`,
    );
    expect(flattenDeepNesting(quoted).flattened).toBe(false);
  });

  it('reads 1 MB of nesting as text, and says it was flattened', () => {
    const html = `<html><body>${'<div>'.repeat(200_000)}<p>The cairn at the end of the nest.</p></body></html>`;
    const doc = parseHtml(new TextEncoder().encode(html), 'utf-8');
    expect(doc.text).toBe('The cairn at the end of the nest.');
    expect(doc.transformations).toEqual(
      expect.arrayContaining(['HTML_NESTING_FLATTENED', 'HTML_TOO_DEEP_FOR_MAIN_CONTENT']),
    );
  });
});
