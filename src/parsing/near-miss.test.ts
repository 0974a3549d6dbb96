import { describe, expect, it } from 'vitest';
import { nearestMiss } from './near-miss.ts';

const ADVISORY = [
  'Vendor advisory VA-2026-07.',
  'The moorland parser accepts crafted headers in versions 2.0 to 2.4 of libmoor.',
  'Upgrade to 2.5, which rejects them.',
].join('\n');

describe('nearestMiss', () => {
  it('finds where the text says almost the same, with its offsets and a similarity', () => {
    const quote = 'The moorland parser accepts crafted headers in versions 2.0 to 2.3 of libmoor';
    const miss = nearestMiss(ADVISORY, quote, []);
    expect(miss).not.toBeNull();
    const said = ADVISORY.slice(miss!.offset, miss!.offset + miss!.length);
    expect(said).toContain('versions 2.0 to 2.4 of libmoor');
    expect(miss!.similarity).toBeGreaterThan(0.95);
    expect(miss!.similarity).toBeLessThan(1);
  });

  it('tolerates dropped words and another case', () => {
    const miss = nearestMiss(ADVISORY, 'the moorland parser accepts headers in versions 2.0 to 2.4', []);
    expect(ADVISORY.slice(miss!.offset, miss!.offset + miss!.length)).toMatch(
      /^The moorland parser accepts crafted/,
    );
  });

  it('offers nothing when nothing is close', () => {
    expect(nearestMiss(ADVISORY, 'Heather beetles chew the cables of the weather station', [])).toBeNull();
    expect(nearestMiss(ADVISORY, 'short', [])).toBeNull();
  });

  it('searches only the page asked for, and names the page of what it found', () => {
    const pages = [
      { page: 1, offset: 0 },
      { page: 2, offset: ADVISORY.indexOf('The moorland') },
      { page: 3, offset: ADVISORY.indexOf('Upgrade') },
    ];
    const quote = 'The moorland parser accepts crafted headers in version 2.0 to 2.4';
    expect(nearestMiss(ADVISORY, quote, pages)?.page).toBe(2);
    expect(nearestMiss(ADVISORY, quote, pages, 3)).toBeNull();
  });

  it('finds it at the end of a long text (1.7 M characters)', () => {
    const text = `${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(30_000)}${ADVISORY}`;
    const miss = nearestMiss(text, 'accepts crafted headers in versions 2.0 to 2.3 of libmoor', []);
    expect(text.slice(miss!.offset, miss!.offset + miss!.length)).toContain('2.4 of libmoor');
  });
});
