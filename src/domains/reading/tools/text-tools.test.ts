import { describe, expect, it } from 'vitest';
import { resolvePointer } from '../json-pointer.ts';
import { findInText, pageAt, windowOf } from '../window.ts';

describe('windowOf', () => {
  const text = '# Title\n\nIntro line.\n\n## Methods\n\nWe counted cairns.\n\n## Results\n\nThere were 12.';

  it('cuts windows that join back into the text', () => {
    let offset: number | null = 0;
    let joined = '';
    while (offset !== null) {
      const w = windowOf(text, { offset, maxChars: 10 });
      joined += w.text;
      offset = w.next_offset;
    }
    expect(joined).toBe(text);
  });

  it('never splits a surrogate pair', () => {
    const emoji = 'ab\u{1F600}cd';
    const w = windowOf(emoji, { maxChars: 3 });
    expect(w.text).toBe('ab');
    expect(windowOf(emoji, { offset: 3, maxChars: 5 }).text).toBe('\u{1F600}cd');
  });

  it('jumps to headings first, then to text, and says when nothing matched', () => {
    expect(windowOf(text, { find: 'results', maxChars: 12 }).text).toBe('## Results\n\n');
    expect(findInText(text, 'counted')).toEqual({ offset: text.indexOf('We counted'), matched: 'TEXT' });
    const none = windowOf(text, { find: 'absent', maxChars: 5 });
    expect(none).toMatchObject({ offset: 0, find: { found: false, matched: null } });
  });

  it('places offsets on pages', () => {
    const pages = [
      { page: 1, offset: 0 },
      { page: 2, offset: 50 },
    ];
    expect(pageAt(pages, 49)).toBe(1);
    expect(pageAt(pages, 50)).toBe(2);
    expect(pageAt([], 3)).toBeNull();
  });
});

describe('resolvePointer', () => {
  const doc = { a: [{ 'b/c': 1, '~d': 2 }], e: null };
  it('follows RFC 6901', () => {
    expect(resolvePointer(doc, '')).toEqual({ found: true, value: doc });
    expect(resolvePointer(doc, '/a/0/b~1c')).toEqual({ found: true, value: 1 });
    expect(resolvePointer(doc, '/a/0/~0d')).toEqual({ found: true, value: 2 });
    expect(resolvePointer(doc, '/e')).toEqual({ found: true, value: null });
    for (const bad of ['/a/1', '/a/01', '/a/-', '/x', 'a', '/e/f', '/a/0/__proto__']) {
      expect(resolvePointer(doc, bad).found, bad).toBe(false);
    }
  });
});
