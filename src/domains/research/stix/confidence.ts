/**
 * A finding's STIX `confidence` from its peer reviews, on the None/Low/Med/High scale of STIX 2.1
 * Appendix A (0 / 15 / 50 / 85), so a consumer reads it the way the specification maps it.
 *
 * - no reviews: omitted. Nobody has assessed the claim; STIX reads an absent confidence as
 *   "not specified", which is the truth, where any number would be invented.
 * - a majority CONTESTED, or some CONTESTED and none SUPPORTED: 0 (None).
 * - a majority SUPPORTED and nothing CONTESTED: 85 (High).
 * - a majority SUPPORTED with some CONTESTED: 50 (Med): any disagreement costs a step.
 * - some SUPPORTED without a majority, nothing CONTESTED: 50 (Med).
 * - otherwise (only INSUFFICIENT_EVIDENCE, or a split with disagreement): 15 (Low).
 *
 * "Majority" is strictly more than half of all reviews; INSUFFICIENT_EVIDENCE counts in the total.
 * The level is never 100: a peer review is an assessment, not proof (SPEC: "SUPPORTED is a peer
 * assessment").
 */
import type { ReviewVerdict } from './types.ts';

export const CONFIDENCE = { none: 0, low: 15, med: 50, high: 85 } as const;

export function findingConfidence(verdicts: readonly ReviewVerdict[]): number | undefined {
  const total = verdicts.length;
  if (total === 0) return undefined;
  const agree = verdicts.filter((v) => v === 'SUPPORTED').length;
  const disagree = verdicts.filter((v) => v === 'CONTESTED').length;
  if (disagree > 0 && (agree === 0 || disagree * 2 > total)) return CONFIDENCE.none;
  if (agree * 2 > total) return disagree === 0 ? CONFIDENCE.high : CONFIDENCE.med;
  if (agree > 0 && disagree === 0) return CONFIDENCE.med;
  return CONFIDENCE.low;
}

/** SPEC's verdicts on the STIX opinion scale (opinion-enum); the strong ends are never used. */
export const OPINION_OF: Readonly<Record<ReviewVerdict, 'agree' | 'disagree' | 'neutral'>> = {
  SUPPORTED: 'agree',
  CONTESTED: 'disagree',
  INSUFFICIENT_EVIDENCE: 'neutral',
};
