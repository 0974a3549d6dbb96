import type { ReceiptRow } from './repo.ts';
import type { EvidenceMeta, EvidenceRecord } from './types.ts';
import { pageAt, type TextWindow } from './window.ts';

/** Row → wire shapes of the Read tools (SPEC, Evidence and citation; Policy receipt). */

export function presentCitation(e: EvidenceMeta | EvidenceRecord) {
  return {
    canonical_url: e.canonicalUrl,
    retrieved_at: e.retrievedAt.toISOString(),
    http_status: e.httpStatus,
    body_hash: e.bodyHash,
    transformations: e.transformations,
  };
}

export function presentPolicy(r: Pick<ReceiptRow, 'id' | 'decision' | 'reasonCode'>) {
  return { decision: r.decision, reason_code: r.reasonCode, receipt_id: r.id };
}

/** The range part of an observation: where this window sits and how to read the next one. */
export function presentRange(e: EvidenceRecord, w: TextWindow) {
  return {
    offset: w.offset,
    next_offset: w.next_offset,
    total_chars: w.total_chars,
    page: pageAt(e.pages, w.offset),
    // Reads the next window from the stored copy: the site is never contacted again.
    continue_with:
      w.next_offset === null
        ? null
        : {
            tool: 'evidence_view',
            arguments: { evidence_id: e.id, offset: w.next_offset, max_chars: w.max_chars },
          },
    ...(w.find ? { find: w.find } : {}),
  };
}

/** What an agent sees of stored text: always data, always labelled untrusted. */
export function presentObservation(e: EvidenceRecord, w: TextWindow) {
  return {
    text: w.text,
    trust_label: e.trustLabel,
    flags: e.flags,
    ...(e.instructionSpans.length > 0 ? { instruction_spans: e.instructionSpans } : {}),
    title: e.title,
    content_kind: e.kind,
    citation: presentCitation(e),
    text_range: presentRange(e, w),
  };
}

/** The success shape of a read (SPEC Errors 3): status, policy, observation, evidence_id, verified_outcome. */
export function presentRead(e: EvidenceRecord, receipt: ReceiptRow | null, w: TextWindow) {
  return {
    status: 'COMPLETED' as const,
    // An import was never read from the web, so no read policy decided it.
    policy: receipt ? presentPolicy(receipt) : null,
    observation: presentObservation(e, w),
    evidence_id: e.id,
    verified_outcome: 'NOT_EVALUATED' as const,
  };
}

/** An evidence record without its text. */
export function presentEvidence(e: EvidenceMeta) {
  return {
    evidence_id: e.id,
    provenance: e.provenance,
    trust_label: e.trustLabel,
    flags: e.flags,
    instruction_spans: e.instructionSpans,
    verified_outcome: 'NOT_EVALUATED' as const,
    citation: presentCitation(e),
    requested_url: e.requestedUrl,
    redirects: e.hops,
    content_type: e.contentType,
    content_kind: e.kind,
    title: e.title,
    total_chars: e.textLength,
    pages: e.pages.length,
    reader_agent_id: e.agentId,
    declared_purpose: e.declaredPurpose,
    task_id: e.taskId,
    campaign_id: e.campaignId,
    policy_receipt_id: e.receiptId,
    ...(e.importFormat
      ? {
          import: {
            format: e.importFormat,
            imported_by: e.ownerId ? { owner_id: e.ownerId } : { agent_id: e.agentId },
            source_date: e.sourceDate?.toISOString() ?? null,
            authorized: e.authorized,
          },
        }
      : {}),
  };
}

export function presentReceipt(r: ReceiptRow) {
  return {
    receipt_id: r.id,
    decision: r.decision,
    reason_code: r.reasonCode,
    rule: r.rule,
    tool: r.tool,
    inputs: r.inputs,
    evidence_id: r.evidenceId,
    agent_id: r.agentId,
    decided_at: r.createdAt.toISOString(),
  };
}

/**
 * The nearest near-miss of a quote that was not found: what the evidence says there, so the
 * caller can quote it exactly (or see that it misread). Null when nothing is close.
 */
export function presentNearMiss(
  text: string,
  near: { offset: number; length: number; page: number | null; similarity: number } | null,
) {
  if (!near) return null;
  return {
    offset: near.offset,
    length: near.length,
    page: near.page,
    similarity: near.similarity,
    text: text.slice(near.offset, near.offset + Math.min(near.length, 2_000)),
    hint: 'Not a match: the evidence says this instead. Quote it exactly, or cite other evidence.',
  };
}
