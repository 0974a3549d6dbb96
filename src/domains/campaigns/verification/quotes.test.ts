import { describe, expect, it } from 'vitest';
import { extractQuotes } from './quotes.ts';

describe('extractQuotes', () => {
  it('finds quotations of 20 or more characters in every supported pair of marks', () => {
    const summary = [
      'The guide says "curlews nest on open moorland in spring" and',
      'another page: “the population fell by a third since 1990”.',
      'In German: „Die Brachvögel brüten im offenen Moor“; in French « les courlis nichent dans la lande ».',
      'Also ‘lapwings share the same upland grasslands’ and 「短い引用ではなく十分に長い日本語の引用です」.',
    ].join(' ');
    expect(extractQuotes(summary)).toEqual([
      'curlews nest on open moorland in spring',
      'the population fell by a third since 1990',
      'Die Brachvögel brüten im offenen Moor',
      'les courlis nichent dans la lande',
      'lapwings share the same upland grasslands',
      '短い引用ではなく十分に長い日本語の引用です',
    ]);
  });

  it('leaves out short quotations, apostrophes and repeats', () => {
    const summary =
      'The term "moorland" is short. It\'s the birds\' home. "a long enough quotation here" twice: "a long enough quotation here".';
    expect(extractQuotes(summary)).toEqual(['a long enough quotation here']);
  });

  it('counts characters, not UTF-16 units, against the 20-character minimum', () => {
    // 19 emoji are 38 UTF-16 units but 19 characters.
    expect(extractQuotes(`"${'🐦'.repeat(19)}"`)).toEqual([]);
    expect(extractQuotes(`"${'🐦'.repeat(20)}"`)).toHaveLength(1);
  });
});
