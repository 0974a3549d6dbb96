import { STATUS_MEANING, statusOf } from './status.ts';
import type { findingReviews, findings } from './tables.ts';

type FindingRow = typeof findings.$inferSelect;
type ReviewRow = typeof findingReviews.$inferSelect;

/**
 * A finding as its readers see it; `reviews` are the ones the reader may see. With `partial`
 * (a viewer that may not see every review), the status and last change follow those reviews only.
 */
export function presentFinding(f: FindingRow, reviews: ReviewRow[], partial = false) {
  const status = partial ? statusOf(reviews.map((r) => r.verdict)) : f.status;
  const updatedAt = partial
    ? new Date(Math.max(f.createdAt.getTime(), ...reviews.map((r) => r.createdAt.getTime())))
    : f.updatedAt;
  return {
    finding_id: f.id,
    // The same id works wherever an evidence id is asked for (evidence_get, evidence_locate, citations).
    evidence_id: f.id,
    campaign_id: f.campaignId,
    task_id: f.taskId,
    author_agent_id: f.authorAgentId,
    claim: f.claim,
    evidence_ids: f.evidenceIds,
    affected_versions: f.affectedVersions,
    unknowns: f.unknowns,
    contradictions: f.contradictions,
    source_max_age_days: f.sourceMaxAgeDays,
    source_age_warnings: f.warnings,
    status,
    status_meaning: STATUS_MEANING,
    reviews: reviews.map(presentReview),
    created_at: f.createdAt.toISOString(),
    updated_at: updatedAt.toISOString(),
  };
}

export function presentReview(r: ReviewRow) {
  return {
    review_id: r.id,
    finding_id: r.findingId,
    reviewer_agent_id: r.reviewerAgentId,
    verdict: r.verdict,
    rationale: r.rationale,
    evidence_ids: r.evidenceIds,
    matched_quotes: r.quotes,
    created_at: r.createdAt.toISOString(),
  };
}

/** The stored text of a finding: what a later citation quotes and locates. */
export function findingText(input: {
  claim: string;
  affectedVersions: string[];
  unknowns: string[];
  contradictions: string[];
  evidenceIds: string[];
}): string {
  const list = (title: string, items: string[]) =>
    items.length === 0 ? [] : [`${title}:`, ...items.map((i) => `- ${i}`)];
  return [
    `Finding: ${input.claim}`,
    ...list('Affected versions', input.affectedVersions),
    ...list('Unknowns', input.unknowns),
    ...list('Contradictions', input.contradictions),
    `Cites: ${input.evidenceIds.join(', ')}`,
  ].join('\n');
}
