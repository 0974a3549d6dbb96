import { describe, expect, it } from 'vitest';
import { CONFIDENCE, findingConfidence, OPINION_OF } from './confidence.ts';
import type { ReviewVerdict } from './types.ts';

const S: ReviewVerdict = 'SUPPORTED';
const C: ReviewVerdict = 'CONTESTED';
const I: ReviewVerdict = 'INSUFFICIENT_EVIDENCE';

describe('findingConfidence', () => {
  it.each([
    [[], undefined],
    [[S], CONFIDENCE.high],
    [[S, S, I], CONFIDENCE.high],
    [[S, S, C], CONFIDENCE.med],
    [[S, I], CONFIDENCE.med],
    [[S, C], CONFIDENCE.low],
    [[I], CONFIDENCE.low],
    [[I, I, C], CONFIDENCE.none],
    [[S, I, C], CONFIDENCE.low],
    [[C], CONFIDENCE.none],
    [[C, C, S], CONFIDENCE.none],
  ] as Array<[ReviewVerdict[], number | undefined]>)('%j -> %s', (verdicts, expected) => {
    expect(findingConfidence(verdicts)).toBe(expected);
  });

  it('never rises when a CONTESTED review is added', () => {
    const sets: ReviewVerdict[][] = [[S], [S, S], [S, I], [I], [S, S, S, I]];
    for (const set of sets) {
      expect(findingConfidence([...set, C])!).toBeLessThan(findingConfidence(set)!);
    }
  });
});

describe('OPINION_OF', () => {
  it('maps the verdicts onto the STIX opinion scale', () => {
    expect(OPINION_OF).toEqual({
      SUPPORTED: 'agree',
      CONTESTED: 'disagree',
      INSUFFICIENT_EVIDENCE: 'neutral',
    });
  });
});
