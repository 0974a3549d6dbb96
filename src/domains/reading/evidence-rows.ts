import { createHash } from 'node:crypto';
import { newId } from '../../kernel/ids.ts';
import type { FetchResult } from '../../net/guarded-fetch.ts';
import type { ParsedDocument } from '../../parsing/types.ts';
import type { Caller } from '../identity/types.ts';
import { READING_LIMITS } from './limits.ts';
import type { ReceiptRow } from './repo.ts';
import type { Coverage, EvidenceRecord, ReadRequest } from './types.ts';

export const PUBLIC_READ_RULE =
  'Anonymous GET of a public http(s) URL: every hop passed the address, URL, sign-in and robots.txt checks; no cookies, credentials or referrer were sent.';

/**
 * The evidence row and ALLOW_ONCE receipt of a completed read, built before anything is stored:
 * the body hash of the bytes as received, the text as capped, and the read's provenance.
 */
export function buildRead(r: {
  caller: Caller;
  req: ReadRequest;
  coverage: Coverage;
  fetched: FetchResult;
  parsed: ParsedDocument;
  inputs: Record<string, unknown>;
  now: Date;
}): { evidence: EvidenceRecord; receipt: ReceiptRow } {
  const { caller, req, coverage, fetched, parsed, inputs, now } = r;
  const bodyHash = `sha256:${createHash('sha256').update(fetched.raw).digest('hex')}`;
  const kept = capText(parsed);
  const evidenceId = newId('evd', now);
  const receipt: ReceiptRow = {
    id: newId('pol', now),
    agentId: caller.agent.id,
    tool: req.tool,
    decision: 'ALLOW_ONCE',
    reasonCode: 'PUBLIC_READ',
    rule: PUBLIC_READ_RULE,
    inputs: { ...inputs, hops: fetched.hops, address: fetched.address, http_status: fetched.status },
    evidenceId,
    createdAt: now,
  };
  const evidence: EvidenceRecord = {
    id: evidenceId,
    agentId: caller.agent.id,
    ownerId: null,
    provenance: 'SERVER_FETCH',
    trustLabel: 'UNTRUSTED_TOOL_OBSERVATION',
    // As parsed, so the same page asked for in another spelling is found as one URL.
    requestedUrl: new URL(req.url).href,
    canonicalUrl: fetched.url,
    retrievedAt: now,
    httpStatus: fetched.status,
    bodyHash,
    contentType: (fetched.headers['content-type'] ?? '').slice(0, 200),
    contentEncoding: fetched.headers['content-encoding']?.slice(0, 100) ?? null,
    kind: parsed.kind,
    title: parsed.title?.slice(0, 500) ?? null,
    text: kept.text,
    pages: parsed.pages.filter((p) => p.offset <= kept.text.length),
    transformations: kept.transformations,
    flags: parsed.flags,
    instructionSpans: kept.spans.slice(0, 100),
    hops: fetched.hops,
    declaredPurpose: req.declaredPurpose,
    taskId: coverage.taskId,
    campaignId: coverage.campaignId,
    receiptId: receipt.id,
    importFormat: null,
    sourceDate: null,
    authorized: null,
  };
  return { evidence, receipt };
}

/** Stored text is capped (SPEC leaves it open): beyond the cap it is cut and the cut is named. */
function capText(parsed: ParsedDocument): {
  text: string;
  transformations: string[];
  spans: ParsedDocument['instructionSpans'];
} {
  const max = READING_LIMITS.read.storedTextChars;
  if (parsed.text.length <= max) {
    return { text: parsed.text, transformations: parsed.transformations, spans: parsed.instructionSpans };
  }
  const code = parsed.text.charCodeAt(max - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
  return {
    text: parsed.text.slice(0, end),
    transformations: [...parsed.transformations, 'TEXT_TRUNCATED'],
    spans: parsed.instructionSpans.filter((s) => s.offset + s.length <= end),
  };
}
