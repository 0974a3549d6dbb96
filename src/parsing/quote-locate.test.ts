import { describe, expect, it } from 'vitest';
import { foldForMatching, locateQuote } from './quote-locate.ts';

describe('locateQuote', () => {
  const text =
    '[page 1]\nThe cairn \u201cstood\u201d   for a\ncentury \u2014 at least.\n[page 2]\nSecond page text here.';
  const pages = [
    { page: 1, offset: 0 },
    { page: 2, offset: text.indexOf('[page 2]') },
  ];
  const at = (match: { offset: number; length: number } | null): string | null =>
    match ? text.slice(match.offset, match.offset + match.length) : null;

  it('finds exact quotes first', () => {
    const match = locateQuote(text, 'Second page text', pages);
    expect(match).toEqual({
      match: 'EXACT',
      offset: text.indexOf('Second page text'),
      length: 16,
      page: 2,
    });
  });

  it('folds whitespace, quotes, dashes and invisible characters, reporting original offsets', () => {
    const match = locateQuote(text, 'cairn "stood" for a century - at\u200b least', pages);
    expect(match).toMatchObject({ match: 'NORMALISED', page: 1 });
    expect(at(match)).toBe('cairn \u201cstood\u201d   for a\ncentury \u2014 at least');
  });

  it('ignores invisible characters in the stored text and surrounding whitespace in the quote', () => {
    const stored = 'Alpha be\u200Bta\u{E0041} gam\u00ADma.';
    const match = locateQuote(stored, '  beta gamma ', []);
    expect(match).toMatchObject({ match: 'NORMALISED', page: null });
    expect(stored.slice(match!.offset, match!.offset + match!.length)).toBe(
      'be\u200Bta\u{E0041} gam\u00ADma',
    );
  });

  it('applies NFKC to compatibility forms but does not fold case', () => {
    const stored = 'The \uFB01eld notes: \uFF21\uFF22\uFF23.';
    expect(locateQuote(stored, 'field notes: ABC', [])).toMatchObject({ match: 'NORMALISED', offset: 4 });
    expect(locateQuote(stored, 'Field notes', [])).toBeNull();
  });

  it('matches a precomposed accent against a decomposed one, in both directions', () => {
    const precomposed = 'Le caf\u00e9 du coin.';
    const decomposed = 'Le cafe\u0301 du coin.';
    const one = locateQuote(precomposed, 'cafe\u0301 du', []);
    expect(one).toEqual({ match: 'NORMALISED', offset: 3, length: 7, page: null });
    const two = locateQuote(decomposed, 'caf\u00e9 du', []);
    expect(two).toEqual({ match: 'NORMALISED', offset: 3, length: 8, page: null });
    expect(decomposed.slice(3, 11)).toBe('cafe\u0301 du');
  });

  it('keeps clusters whole in long non-ASCII texts, wherever they fall', () => {
    for (const before of [254, 255, 256, 511]) {
      const stored = `${'\u4e2d'.repeat(before)}cafe\u0301 \u{1F468}\u200D\u{1F469}${'\u6587'.repeat(300)}`;
      expect(locateQuote(stored, 'caf\u00e9 \u{1F468}\u{1F469}', []), String(before)).toEqual({
        match: 'NORMALISED',
        offset: before,
        length: 11,
        page: null,
      });
    }
  });

  it('does not match a bare letter inside an accented one', () => {
    expect(locateQuote('Le caf\u00e9.', 'cafe.', [])).toBeNull();
    expect(locateQuote('Le cafe\u0301.', 'cafe.', [])).toBeNull();
  });

  it('limits the search to a page and reports absence', () => {
    expect(locateQuote(text, 'Second page', pages, 2)).toMatchObject({ match: 'EXACT', page: 2 });
    expect(locateQuote(text, 'Second page', pages, 1)).toBeNull();
    expect(locateQuote(text, 'Second page', pages, 3)).toBeNull();
    expect(locateQuote(text, 'nowhere to be found', pages)).toBeNull();
    expect(locateQuote(text, ' \u200B ', pages)).toBeNull();
    expect(locateQuote(text, '', pages)).toBeNull();
  });

  it('finds a normalised quote on a later page with offsets into the whole text', () => {
    const match = locateQuote(text, 'Second  page\ntext', pages, 2);
    expect(match).toMatchObject({ match: 'NORMALISED', page: 2 });
    expect(at(match)).toBe('Second page text');
  });
});

describe('foldForMatching', () => {
  it('maps every folded code unit back to the original cluster it came from', () => {
    const folded = foldForMatching(' a\u2014 \r\n e\u0301\u{1F600}');
    expect(folded.folded).toBe('a- \u00e9\u{1F600}');
    expect(folded.start).toEqual([1, 2, 3, 7, 9, 9]);
    expect(folded.end).toEqual([2, 3, 7, 9, 11, 11]);
  });
});
