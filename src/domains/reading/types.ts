import type { SQL } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import type { Caller } from '../identity/types.ts';

/**
 * What reading asks the campaign area: must this read be covered by a lease, and which one;
 * how a covered read joins its campaign; and which other agents' evidence a reader may see.
 */
export interface ReadCoverage {
  /** The lease covering a fresh read; throws a DomainError (stored as a DENY receipt) when none may. */
  coverRead(ex: Executor, caller: Caller, taskId: string | null, now: Date): Promise<Coverage>;
  /** Shares a read made under a lease with its campaign, in the transaction that stores it. */
  recordRead(
    ex: Executor,
    coverage: Coverage,
    evidence: { id: string; agentId: string },
    now: Date,
  ): Promise<void>;
  /** Evidence (rows of `evidence`) other identities share with this agent; null when none can be. */
  sharedEvidence(agentId: string): SQL | null;
}

export interface Coverage {
  campaignId: string | null;
  taskId: string | null;
  leaseId: string | null;
}

/** Reads outside any campaign: the answer before campaigns exist. */
export const noCampaigns: ReadCoverage = {
  coverRead: async (_ex, _caller, taskId) => ({ campaignId: null, taskId, leaseId: null }),
  recordRead: async () => {},
  sharedEvidence: () => null,
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
