import type { Executor } from '../../storage/database.ts';
import type { Caller } from '../identity/types.ts';

/**
 * The one question reading asks the campaign area: must this read be covered by a lease, and
 * which one? Until campaigns exist the answer is always "no campaign" (DESIGN.md roadmap).
 */
export interface ReadCoverage {
  coverRead(ex: Executor, caller: Caller, taskId: string | null): Promise<Coverage>;
}

export interface Coverage {
  campaignId: string | null;
  taskId: string | null;
  leaseId: string | null;
}

/** Reads outside any campaign: the answer before campaigns exist. */
export const noCampaigns: ReadCoverage = {
  coverRead: async (_ex, _caller, taskId) => ({ campaignId: null, taskId, leaseId: null }),
};

/** Where evidence came from (SPEC, Evidence and citation). */
export type Provenance = 'SERVER_FETCH' | 'SNAPSHOT';

/** A stored read, as the reading area hands it to other areas (verification, findings). */
export interface EvidenceRecord {
  id: string;
  agentId: string;
  provenance: Provenance;
  trustLabel: string;
  requestedUrl: string;
  canonicalUrl: string;
  retrievedAt: Date;
  httpStatus: number;
  bodyHash: string;
  contentType: string;
  contentEncoding: string | null;
  kind: string;
  title: string | null;
  text: string;
  pages: Array<{ page: number; offset: number }>;
  transformations: string[];
  flags: string[];
  instructionSpans: unknown[];
  hops: string[];
  declaredPurpose: string;
  taskId: string | null;
  campaignId: string | null;
  receiptId: string;
}

/** A stored read without its text: what citations and records need. */
export type EvidenceMeta = Omit<EvidenceRecord, 'text'> & { textLength: number };

/** One fresh read as the tools ask for it. */
export interface ReadRequest {
  /** The tool the read was made for (kept on the receipt). */
  tool: string;
  url: string;
  declaredPurpose: string;
  taskId: string | null;
}
