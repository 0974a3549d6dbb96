import type { Clock } from '../../kernel/clock.ts';
import { type Alternative, DomainError, isErrorCode, retryableByDefault } from '../../kernel/errors.ts';
import type { FetchResult } from '../../net/guarded-fetch.ts';
import type { ParsedDocument, Parser } from '../../parsing/types.ts';
import type { Database, Executor } from '../../storage/database.ts';
import type { Caller } from '../identity/types.ts';
import {
  alternativesNow,
  type DenialDeps,
  type DenialOptions,
  deny,
  normaliseUrl,
  readBlockedBy,
} from './denials.ts';
import { buildRead } from './evidence-rows.ts';
import { simulateRead } from './read-simulation.ts';
import { LEASE_RULE, type ReadRefusal, receiptUrl, refusalOf, upstreamStatusRefusal } from './refusals.ts';
import type { ReceiptRow } from './repo.ts';
import * as repo from './repo.ts';
import { type BodyDecoder, StoredText } from './stored-text.ts';
import type { Coverage, EvidenceMeta, EvidenceRecord, ReadCoverage, ReadRequest } from './types.ts';

export type { ReadRequest } from './types.ts';

/** The guarded fetcher as reading uses it: one page read with every network-safety check. */
export interface PageReader {
  readPage(url: string, accept: string): Promise<FetchResult>;
  /** The checks readPage makes before any request, without making one; throws NetRefusal. */
  preflight(url: string): void;
}

/** A completed read: the evidence stored and the receipt that allowed it. */
export interface CompletedRead {
  evidence: EvidenceRecord;
  receipt: ReceiptRow;
}

// Every format Cairn reads, best first; anything else is refused after the response arrives.
const ACCEPT =
  'text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.9,text/plain;q=0.8,application/json;q=0.8,image/png;q=0.7,image/jpeg;q=0.7,*/*;q=0.1';

/**
 * Permissioned reading: one fresh read of a public URL through the guarded fetcher and the
 * bounded parsers, stored as evidence with its raw bytes and an ALLOW_ONCE receipt; every
 * refusal stores a DENY receipt. Also the lookups of stored evidence and receipts.
 */
export interface ReadingOptions {
  /** Fresh reads in flight per process; past it reads are refused with DEGRADED_MODE. */
  maxConcurrentReads: number;
  /** A web search provider is configured (refusals offer web_search only then). */
  searchConfigured: boolean;
}

export class ReadingService {
  private inFlight = 0;
  private readonly denials: DenialDeps;
  /** Work on stored texts in the bounded pool: quotes, near-misses, diffs, tables and JSON. */
  readonly text: StoredText;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly pages: PageReader,
    private readonly parser: Parser,
    private readonly coverage: ReadCoverage,
    readonly decode: BodyDecoder,
    private readonly options: ReadingOptions,
  ) {
    this.denials = {
      database,
      clock,
      coverage,
      searchConfigured: options.searchConfigured,
      visibleTo: (caller) => this.visibleTo(caller),
    };
    this.text = new StoredText(database, parser, decode, (caller, tool, inputs, refusal) =>
      this.refuse(caller, tool, inputs, refusal),
    );
  }

  /** Reads a URL now and stores what was read. Throws a DomainError carrying a DENY receipt when refused. */
  async read(caller: Caller, req: ReadRequest): Promise<CompletedRead> {
    // Each read may hold a few copies of a 12 MiB body: the number in flight is what bounds memory.
    if (this.inFlight >= this.options.maxConcurrentReads) {
      throw await this.refuse(
        caller,
        req.tool,
        { url: receiptUrl(req.url) },
        {
          code: 'DEGRADED_MODE',
          rule: `At most ${this.options.maxConcurrentReads} fresh reads are in flight per server process (CAIRN_READ_CONCURRENCY).`,
          message: 'This server is reading as many pages as it may at once; retry in five seconds.',
          details: { retry_after_seconds: 5 },
        },
      );
    }
    this.inFlight++;
    try {
      return await this.readNow(caller, req);
    } finally {
      this.inFlight--;
    }
  }

  private async readNow(caller: Caller, req: ReadRequest): Promise<CompletedRead> {
    const coverage = await this.cover(caller, req);
    const inputs = (): Record<string, unknown> => ({
      url: receiptUrl(req.url),
      declared_purpose: req.declaredPurpose,
      task_id: coverage.taskId,
      campaign_id: coverage.campaignId,
      lease_id: coverage.leaseId,
    });
    let fetched: FetchResult;
    let parsed: ParsedDocument;
    try {
      fetched = await this.pages.readPage(req.url, ACCEPT);
      if (fetched.status < 200 || fetched.status > 299) {
        throw await this.refuse(
          caller,
          req.tool,
          inputs(),
          upstreamStatusRefusal(fetched.status, fetched.url),
          { hops: fetched.hops, coverage },
        );
      }
      parsed = await this.parser.parse({
        bytes: fetched.body,
        contentType: fetched.headers['content-type'] ?? '',
        url: fetched.url,
      });
    } catch (err) {
      if (err instanceof DomainError) throw err;
      const refusal = refusalOf(err);
      if (!refusal) throw err;
      throw await this.refuse(caller, req.tool, inputs(), refusal, { coverage });
    }
    if (parsed.surface) {
      const refusal: ReadRefusal =
        parsed.surface === 'SIGN_IN'
          ? {
              code: 'SIGN_IN_SURFACE',
              rule: 'A page whose content is a sign-in form is not served: Cairn never signs in.',
              message: `${fetched.url.slice(0, 300)} is a sign-in page.`,
              details: { final_url: fetched.url },
            }
          : {
              code: 'APP_SHELL',
              rule: 'A script-rendered application shell with no readable text is not served: Cairn does not run scripts.',
              message: `${fetched.url.slice(0, 300)} is an application shell with no readable text.`,
              details: { final_url: fetched.url },
            };
      throw await this.refuse(caller, req.tool, inputs(), refusal, { hops: fetched.hops, coverage });
    }
    return this.record(caller, req, coverage, fetched, parsed, inputs());
  }

  /** Which lease covers the read; a refusal (no lease, several) is stored with its DENY receipt. */
  private async cover(caller: Caller, req: ReadRequest): Promise<Coverage> {
    try {
      return await this.coverage.coverRead(this.database.db, caller, req.taskId, this.clock.now());
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      throw await this.refuse(
        caller,
        req.tool,
        { url: receiptUrl(req.url), declared_purpose: req.declaredPurpose, task_id: req.taskId },
        {
          code: err.code,
          rule: LEASE_RULE,
          message: err.message,
          details: err.details,
          alternatives: err.alternatives,
          next: err.next,
        },
      );
    }
  }

  private async record(
    caller: Caller,
    req: ReadRequest,
    coverage: Coverage,
    fetched: FetchResult,
    parsed: ParsedDocument,
    inputs: Record<string, unknown>,
  ): Promise<CompletedRead> {
    const now = this.clock.now();
    const { evidence, receipt } = buildRead({ caller, req, coverage, fetched, parsed, inputs, now });
    await this.database.transaction(async (tx) => {
      await repo.storeBlob(tx, evidence.bodyHash, fetched.raw, now, this.database.kind);
      await repo.insertReceipt(tx, receipt);
      await repo.insertEvidence(tx, evidence, now);
      await this.coverage.recordRead(tx, coverage, evidence, now);
    });
    return { evidence, receipt };
  }

  /** policy_explain on a URL: what a read of it would be decided now, without fetching (read-simulation.ts). */
  async simulate(caller: Caller, req: { url: string; taskId: string | null }) {
    return simulateRead(
      {
        database: this.database,
        clock: this.clock,
        coverage: this.coverage,
        preflight: (url) => this.pages.preflight(url),
      },
      caller,
      req,
    );
  }

  /** Stores the DENY receipt of a refusal and returns the error that carries it (see denials.ts). */
  refuse(
    caller: Caller,
    tool: string,
    inputs: Record<string, unknown>,
    refusal: ReadRefusal,
    options?: DenialOptions,
  ): Promise<DomainError> {
    return deny(this.denials, caller, tool, inputs, refusal, options);
  }

  /** The alternatives to a stored refusal that can succeed for this caller now (policy_explain). */
  alternativesTo(caller: Caller, receipt: ReceiptRow): Promise<Alternative[]> {
    const code = receipt.reasonCode;
    if (!isErrorCode(code)) return Promise.resolve([]);
    const url = (receipt.inputs as { url?: unknown }).url;
    return alternativesNow(this.denials, caller, receipt.tool, code, {
      url: typeof url === 'string' ? url : null,
      retryable: retryableByDefault(code),
      covered: false,
    });
  }

  /** What evidence the caller may see: its own reads and what its campaigns share with it. */
  private visibleTo(caller: Caller) {
    return repo.visibleTo(caller.agent.id, (id) => this.coverage.sharedEvidence(id));
  }

  /** A stored read the caller may see, or NOT_FOUND. */
  async evidence(
    caller: Caller,
    evidenceId: string,
    ex: Executor = this.database.db,
  ): Promise<EvidenceRecord> {
    const found = await repo.findVisibleEvidence(ex, this.visibleTo(caller), evidenceId);
    if (!found) {
      throw new DomainError('NOT_FOUND', `No evidence ${evidenceId} is visible to this identity.`, {
        evidence_id: evidenceId,
      });
    }
    return found;
  }

  /** A stored read the caller may see, without its text (cheap for citations and records), or NOT_FOUND. */
  async evidenceMeta(
    caller: Caller,
    evidenceId: string,
    ex: Executor = this.database.db,
  ): Promise<EvidenceMeta> {
    const found = await repo.findVisibleEvidenceMeta(ex, this.visibleTo(caller), evidenceId);
    if (!found) {
      throw new DomainError('NOT_FOUND', `No evidence ${evidenceId} is visible to this identity.`, {
        evidence_id: evidenceId,
      });
    }
    return found;
  }

  /**
   * The latest stored copy of a URL the caller may see, or NOT_FOUND. With `before`, only copies
   * read before it (or at it, when `inclusive`).
   */
  async latestCopy(
    caller: Caller,
    url: string,
    before?: { at: Date; inclusive: boolean },
  ): Promise<EvidenceRecord> {
    const found = await repo.findLatestCopy(
      this.database.db,
      this.visibleTo(caller),
      normaliseUrl(url),
      before,
    );
    const earlierThan = before?.at;
    if (!found) {
      throw new DomainError(
        'NOT_FOUND',
        earlierThan
          ? `No stored copy of ${url.slice(0, 300)} read before ${earlierThan.toISOString()} is visible to this identity.`
          : `No stored copy of ${url.slice(0, 300)} is visible to this identity.`,
        { url: url.slice(0, 300) },
        {
          alternatives: (await readBlockedBy(this.denials, caller)) ?? [
            { tool: 'fetch_text', action: 'Read the URL now; that stores a copy.', arguments: { url } },
          ],
        },
      );
    }
    return found;
  }

  /** The receipt of the read that stored a piece of evidence the caller may see; null for an import. */
  async receiptOf(evidence: Pick<EvidenceMeta, 'id' | 'receiptId'>): Promise<ReceiptRow | null> {
    if (evidence.receiptId === null) return null;
    const found = await repo.findReceipt(this.database.db, evidence.receiptId);
    if (!found) throw new Error(`evidence ${evidence.id} has no receipt`);
    return found;
  }

  /** A receipt of the caller's own, or NOT_FOUND. */
  async receipt(caller: Caller, receiptId: string): Promise<ReceiptRow> {
    const found = await repo.findReceipt(this.database.db, receiptId);
    if (!found || found.agentId !== caller.agent.id) {
      throw new DomainError('NOT_FOUND', `No policy receipt ${receiptId} is visible to this identity.`, {
        receipt_id: receiptId,
      });
    }
    return found;
  }
}
