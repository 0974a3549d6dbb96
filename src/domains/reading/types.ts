import type { SQL } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
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
    evidence: { id: string; agentId: string | null },
    now: Date,
  ): Promise<void>;
  /**
   * Puts a refused read made under a lease on its campaign's ledger (SPEC: the ledger records
   * refusals), in the transaction that stores its DENY receipt.
   */
  recordRefusal(
    ex: Executor,
    coverage: Coverage,
    refusal: { agentId: string; receiptId: string; code: string; tool: string },
    now: Date,
  ): Promise<void>;
  /** Evidence (rows of `evidence`) other identities share with this agent; null when none can be. */
  sharedEvidence(agentId: string): SQL | null;
  /** Evidence in campaigns this owner owns (rows of `evidence`), beyond its own imports; null when none can be. */
  ownerEvidence(ownerId: string): SQL | null;
  /** Where an import joins a campaign (and task); throws a DomainError when the importer may not. */
  bindImport(
    ex: Executor,
    importer: Importer,
    campaignId: string | undefined,
    taskId: string | undefined,
    opts?: { forChange?: boolean },
  ): Promise<ImportBinding>;
  /** Shares a stored import with its campaign and writes the ledger event, in the storing transaction. */
  recordImport(
    ex: Executor,
    binding: ImportBinding,
    importer: Importer,
    evidence: { id: string; provenance: string; format: string },
    now: Date,
  ): Promise<void>;
  /**
   * How far evidence_search reaches into campaigns for this agent: one campaign (refused unless
   * it is an active member) or, with none named, every campaign it is an active member of.
   */
  searchReach(ex: Executor, caller: Caller, campaignId: string | null): Promise<SearchReach>;
}

/** A full-text query as SQL: whether a search vector matches it, and how well. */
export interface TextMatch {
  matches(vector: SQL): SQL;
  rank(vector: SQL): SQL;
}

/** What evidence_search may search in campaigns (search-index.ts); the campaigns area decides it. */
export interface SearchReach {
  /** For a search limited to one campaign: its evidence (a predicate over rows of `evidence`); else null. */
  evidenceIn: SQL | null;
  /**
   * The messages the agent may see that match, as one SELECT of the columns `id`, `campaign_id`,
   * `task_id`, `type`, `content`, `rank` (match.rank of the message's vector) and `created_at`,
   * visibility filtered inside it; null when there is nothing to search (no campaign).
   */
  messages(match: TextMatch): SQL | null;
}

/** Who imports a file: a person signed in to the console, or an agent (evidence_submit). */
export type Importer = { ownerId: string } | { caller: Caller };

/** The campaign and task an import joins (none for a person's import outside campaigns), and the importer's role there. */
export interface ImportBinding {
  campaignId: string | null;
  taskId: string | null;
  role: 'OWNER' | 'COORDINATOR' | 'PARTICIPANT';
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
  recordRefusal: async () => {},
  sharedEvidence: () => null,
  ownerEvidence: () => null,
  bindImport: async (_ex, _importer, campaignId, taskId) => {
    if (campaignId || taskId) {
      throw new DomainError('NOT_FOUND', 'Campaigns are not available on this server.', {
        campaign_id: campaignId ?? null,
        task_id: taskId ?? null,
      });
    }
    return { campaignId: null, taskId: null, role: 'OWNER' };
  },
  recordImport: async () => {},
  searchReach: async (_ex, _caller, campaignId) => {
    if (campaignId) {
      throw new DomainError('NOT_FOUND', 'Campaigns are not available on this server.', {
        campaign_id: campaignId,
      });
    }
    return { evidenceIn: null, messages: () => null };
  },
};

/**
 * Where evidence came from (SPEC, Evidence and citation): a read by the server, a stored copy,
 * a person's import in the console (OWNER_IMPORT), a file an agent handed in (AGENT_SUBMITTED), or
 * mail a campaign mailbox received that a granted agent turned into evidence (RECEIVED_MAIL).
 */
export type Provenance = 'SERVER_FETCH' | 'SNAPSHOT' | 'OWNER_IMPORT' | 'AGENT_SUBMITTED' | 'RECEIVED_MAIL';

/** A stored read, as the reading area hands it to other areas (verification, findings). */
export interface EvidenceRecord {
  id: string;
  /** The reading or importing agent; null for an owner's import. */
  agentId: string | null;
  /** The importing owner, for OWNER_IMPORT; else null. */
  ownerId: string | null;
  provenance: Provenance;
  trustLabel: string;
  requestedUrl: string;
  canonicalUrl: string;
  retrievedAt: Date;
  /** Null for imports: no HTTP exchange took place. */
  httpStatus: number | null;
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
  /** The ALLOW_ONCE receipt of a read; null for imports, which no read policy decided. */
  receiptId: string | null;
  /** For imports: the format (pdf, png, …), the source's own date and whether the importer says it was authorized. */
  importFormat: string | null;
  sourceDate: Date | null;
  authorized: boolean | null;
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
