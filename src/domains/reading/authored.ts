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
  return storeText(
    ex,
    {
      ...input,
      provenance: 'AGENT_SUBMITTED',
      trustLabel: 'UNVERIFIED',
      url: `urn:cairn:${input.kind}:${input.id}`,
      retrievedAt: now,
    },
    now,
  );
}

/**
 * Mail the campaign's mailbox received, turned into evidence by an agent granted its mail
 * (docs/mail.md "Mail as evidence"): provenance RECEIVED_MAIL (Cairn itself received and
 * recorded these words, so quotations of it verify), label UNTRUSTED_EMAIL (whoever sent it is
 * unauthenticated), the mail's flags and instruction spans kept. The bytes are the UTF-8 of the
 * sanitised text: the mail's raw bytes are never stored.
 */
export async function storeReceivedMail(
  ex: Executor,
  input: {
    id: string;
    agentId: string;
    mailId: string;
    messageId: string | null;
    subject: string | null;
    text: string;
    flags: string[];
    instructionSpans: unknown[];
    receivedAt: Date;
    campaignId: string;
    taskId: string | null;
  },
  now: Date,
): Promise<EvidenceRecord> {
  return storeText(
    ex,
    {
      ...input,
      kind: 'mail',
      title: input.subject ?? '(no subject)',
      provenance: 'RECEIVED_MAIL',
      trustLabel: 'UNTRUSTED_EMAIL',
      url: `urn:cairn:mail:${input.mailId}`,
      // RFC 2392: a mid: URL names the message itself, which is what a citation should name.
      canonicalUrl: input.messageId
        ? `mid:${encodeURIComponent(input.messageId.replace(/^<|>$/g, ''))}`
        : undefined,
      retrievedAt: input.receivedAt,
      transformations: ['MAIL_SANITISED_TEXT'],
    },
    now,
  );
}

async function storeText(
  ex: Executor,
  input: {
    id: string;
    agentId: string;
    kind: string;
    title: string;
    text: string;
    campaignId: string;
    taskId: string | null;
    provenance: EvidenceRecord['provenance'];
    trustLabel: string;
    url: string;
    canonicalUrl?: string | undefined;
    retrievedAt: Date;
    flags?: string[];
    instructionSpans?: unknown[];
    transformations?: string[];
  },
  now: Date,
): Promise<EvidenceRecord> {
  const bytes = Buffer.from(input.text, 'utf8');
  const record: EvidenceRecord = {
    id: input.id,
    agentId: input.agentId,
    ownerId: null,
    provenance: input.provenance,
    trustLabel: input.trustLabel,
    requestedUrl: input.url,
    canonicalUrl: input.canonicalUrl ?? input.url,
    retrievedAt: input.retrievedAt,
    httpStatus: null,
    bodyHash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    contentType: 'text/plain; charset=utf-8',
    contentEncoding: null,
    kind: input.kind,
    title: input.title.slice(0, 500),
    text: input.text,
    pages: [],
    transformations: input.transformations ?? [],
    flags: input.flags ?? [],
    instructionSpans: input.instructionSpans ?? [],
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
