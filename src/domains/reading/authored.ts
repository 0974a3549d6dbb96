import { createHash } from 'node:crypto';
import type { Executor } from '../../storage/database.ts';
import * as repo from './repo.ts';
import type { EvidenceRecord } from './types.ts';

/**
 * Text an agent wrote that others cite like a source (a finding): stored as evidence with
 * provenance AGENT_SUBMITTED and label UNVERIFIED, its bytes the UTF-8 of the text, so quote
 * location, evidence_get and citations work on it unchanged. The caller shares it with its
 * campaign in the same transaction.
 */
export async function storeAuthored(
  ex: Executor,
  input: {
    id: string;
    agentId: string;
    kind: string;
    title: string;
    text: string;
    campaignId: string;
    taskId: string | null;
  },
  now: Date,
): Promise<EvidenceRecord> {
  const bytes = Buffer.from(input.text, 'utf8');
  const record: EvidenceRecord = {
    id: input.id,
    agentId: input.agentId,
    ownerId: null,
    provenance: 'AGENT_SUBMITTED',
    trustLabel: 'UNVERIFIED',
    requestedUrl: `urn:cairn:${input.kind}:${input.id}`,
    canonicalUrl: `urn:cairn:${input.kind}:${input.id}`,
    retrievedAt: now,
    httpStatus: null,
    bodyHash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    contentType: 'text/plain; charset=utf-8',
    contentEncoding: null,
    kind: input.kind,
    title: input.title.slice(0, 500),
    text: input.text,
    pages: [],
    transformations: [],
    flags: [],
    instructionSpans: [],
    hops: [],
    declaredPurpose: input.kind,
    taskId: input.taskId,
    campaignId: input.campaignId,
    receiptId: null,
    importFormat: null,
    sourceDate: null,
    authorized: null,
  };
  await repo.storeBlob(ex, record.bodyHash, bytes, now);
  await repo.insertEvidence(ex, record, now);
  return record;
}
