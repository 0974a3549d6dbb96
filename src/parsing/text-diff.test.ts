import { describe, expect, it } from 'vitest';
import { DIFF_MAX_CHARS, diffTexts } from './text-diff.ts';

describe('diffTexts', () => {
  it('reports unchanged texts', () => {
    expect(diffTexts('a', 'b', 'same\n', 'same\n')).toEqual({
      changed: false,
      unified: '',
      added_lines: 0,
      removed_lines: 0,
      truncated: false,
    });
  });

  it('counts added and removed lines from the hunks, not the file headers', () => {
    const d = diffTexts('old', 'new', 'one\ntwo\nfour\n', 'one\nthree\nfour\nfive\n');
    expect(d).toMatchObject({ changed: true, added_lines: 2, removed_lines: 1, truncated: false });
    expect(d.unified).toContain('--- old');
    expect(d.unified).toContain('+++ new');
    expect(d.unified).toContain('-two');
    expect(d.unified).toContain('+three');
  });

  it('cuts a long diff at the published limit', () => {
    const line = 'x'.repeat(99);
    const oldText = Array.from({ length: 1_000 }, (_, i) => `${i} ${line}`).join('\n');
    const newText = Array.from({ length: 1_000 }, (_, i) => `${i} ${line}!`).join('\n');
    const d = diffTexts('a', 'b', oldText, newText);
    expect(d).toMatchObject({ changed: true, added_lines: 1_000, removed_lines: 1_000, truncated: true });
    expect(d.unified?.length).toBe(DIFF_MAX_CHARS);
  });
});
