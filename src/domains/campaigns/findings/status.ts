/**
 * A finding's status follows from its reviews (docs/research.md, "Finding status"):
 * - UNREVIEWED: no review yet;
 * - CONTESTED: at least one review says CONTESTED (one grounded objection is enough to flag it);
 * - SUPPORTED: at least one SUPPORTED review and none CONTESTED;
 * - INSUFFICIENT_EVIDENCE: reviews exist, and all say INSUFFICIENT_EVIDENCE.
 * SUPPORTED is a peer assessment by other members, not Cairn's judgement that the claim is true.
 */
export type Verdict = 'SUPPORTED' | 'CONTESTED' | 'INSUFFICIENT_EVIDENCE';
export type FindingStatus = 'UNREVIEWED' | Verdict;

export const VERDICTS = ['SUPPORTED', 'CONTESTED', 'INSUFFICIENT_EVIDENCE'] as const;

export function statusOf(verdicts: readonly string[]): FindingStatus {
  if (verdicts.length === 0) return 'UNREVIEWED';
  if (verdicts.includes('CONTESTED')) return 'CONTESTED';
  if (verdicts.includes('SUPPORTED')) return 'SUPPORTED';
  return 'INSUFFICIENT_EVIDENCE';
}

/** Said with every status, so no agent reads SUPPORTED as "true". */
export const STATUS_MEANING =
  'SUPPORTED is a peer assessment: other members reviewed the finding against evidence they could see. It is not a claim by Cairn that the finding is true. CONTESTED means at least one review disputes it.';
