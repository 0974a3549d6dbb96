import { createHash } from 'node:crypto';
import type { Clock } from '../../kernel/clock.ts';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { FetchResult } from '../../net/guarded-fetch.ts';
import type { ExtractedJson, ExtractedTable, ParsedDocument, Parser } from '../../parsing/types.ts';
import type { Database, Executor } from '../../storage/database.ts';
import type { Caller } from '../identity/types.ts';
import {
  alternativesFor,
  type ReadRefusal,
  receiptUrl,
  refusalOf,
  upstreamStatusRefusal,
} from './refusals.ts';
import type { ReceiptRow } from './repo.ts';
import * as repo from './repo.ts';
import type { Coverage, EvidenceRecord, ReadCoverage } from './types.ts';

/** The guarded fetcher as reading uses it: one page read with every network-safety check. */
export interface PageReader {
  readPage(url: string, accept: string): Promise<FetchResult>;
}

/** Undoes a stored body's content encoding with the fetcher's own caps. */
export type BodyDecoder = (raw: Buffer, contentEncoding: string | null) => Buffer;

export interface ReadRequest {
  /** The tool the read was made for (kept on the receipt). */
  tool: string;
  url: string;
  declaredPurpose: string;
  taskId: string | null;
}

/** A completed read: the evidence stored and the receipt that allowed it. */
export interface CompletedRead {
  evidence: EvidenceRecord;
  receipt: ReceiptRow;
}

// Every format Cairn reads, best first; anything else is refused after the response arrives.
const ACCEPT =
  'text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.9,text/plain;q=0.8,application/json;q=0.8,image/png;q=0.7,image/jpeg;q=0.7,*/*;q=0.1';

const PUBLIC_READ_RULE =
  'Anonymous GET of a public http(s) URL: every hop passed the address, URL, sign-in and robots.txt checks; no cookies, credentials or referrer were sent.';

/**
 * Permissioned reading: one fresh read of a public URL through the guarded fetcher and the
 * bounded parsers, stored as evidence with its raw bytes and an ALLOW_ONCE receipt; every
 * refusal stores a DENY receipt. Also the lookups of stored evidence and receipts.
 */
export class ReadingService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly pages: PageReader,
    private readonly parser: Parser,
    private readonly coverage: ReadCoverage,
    private readonly decode: BodyDecoder,
  ) {}

  /** Reads a URL now and stores what was read. Throws a DomainError carrying a DENY receipt when refused. */
  async read(caller: Caller, req: ReadRequest): Promise<CompletedRead> {
    const coverage = await this.coverage.coverRead(this.database.db, caller, req.taskId);
    const inputs = (code: ReadRefusal['code'] | null): Record<string, unknown> => ({
      url: receiptUrl(req.url, code),
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
          inputs(null),
          upstreamStatusRefusal(fetched.status, fetched.url),
          fetched.hops,
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
      throw await this.refuse(caller, req.tool, inputs(refusal.code), refusal);
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
      throw await this.refuse(caller, req.tool, inputs(refusal.code), refusal, fetched.hops);
    }
    return this.record(caller, req, coverage, fetched, parsed, inputs(null));
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
    const bodyHash = `sha256:${createHash('sha256').update(fetched.raw).digest('hex')}`;
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
      provenance: 'SERVER_FETCH',
      trustLabel: 'UNTRUSTED_TOOL_OBSERVATION',
      requestedUrl: req.url,
      canonicalUrl: fetched.url,
      retrievedAt: now,
      httpStatus: fetched.status,
      bodyHash,
      contentType: (fetched.headers['content-type'] ?? '').slice(0, 200),
      contentEncoding: fetched.headers['content-encoding']?.slice(0, 100) ?? null,
      kind: parsed.kind,
      title: parsed.title?.slice(0, 500) ?? null,
      text: parsed.text,
      pages: parsed.pages,
      transformations: parsed.transformations,
      flags: parsed.flags,
      instructionSpans: parsed.instructionSpans.slice(0, 100),
      hops: fetched.hops,
      declaredPurpose: req.declaredPurpose,
      taskId: coverage.taskId,
      campaignId: coverage.campaignId,
      receiptId: receipt.id,
    };
    await this.database.transaction(async (tx) => {
      await repo.storeBlob(tx, bodyHash, fetched.raw, now);
      await repo.insertReceipt(tx, receipt);
      await repo.insertEvidence(tx, evidence, now);
    });
    return { evidence, receipt };
  }

  /** Stores the DENY receipt of a refusal and returns the error that carries it. */
  async refuse(
    caller: Caller,
    tool: string,
    inputs: Record<string, unknown>,
    refusal: ReadRefusal,
    hops?: string[],
  ): Promise<DomainError> {
    const now = this.clock.now();
    const receiptId = newId('pol', now);
    await repo.insertReceipt(this.database.db, {
      id: receiptId,
      agentId: caller.agent.id,
      tool,
      decision: 'DENY',
      reasonCode: refusal.code,
      rule: refusal.rule,
      inputs: { ...inputs, ...(hops ? { hops } : {}), refusal: refusal.details },
      evidenceId: null,
      createdAt: now,
    });
    return new DomainError(
      refusal.code,
      refusal.message,
      { ...refusal.details, policy_receipt_id: receiptId },
      {
        alternatives: alternativesFor(refusal.code),
        ...(refusal.retryable !== undefined ? { retryable: refusal.retryable } : {}),
      },
    );
  }

  /** A stored read the caller may see, or NOT_FOUND. */
  async evidence(
    caller: Caller,
    evidenceId: string,
    ex: Executor = this.database.db,
  ): Promise<EvidenceRecord> {
    const found = await repo.findVisibleEvidence(ex, caller.agent.id, evidenceId);
    if (!found) {
      throw new DomainError('NOT_FOUND', `No evidence ${evidenceId} is visible to this identity.`, {
        evidence_id: evidenceId,
      });
    }
    return found;
  }

  /** The latest stored copy of a URL the caller may see (read before `earlierThan` when given), or NOT_FOUND. */
  async latestCopy(caller: Caller, url: string, earlierThan?: Date): Promise<EvidenceRecord> {
    const found = await repo.findLatestCopy(this.database.db, caller.agent.id, url, earlierThan);
    if (!found) {
      throw new DomainError(
        'NOT_FOUND',
        earlierThan
          ? `No stored copy of ${url.slice(0, 300)} read before ${earlierThan.toISOString()} is visible to this identity.`
          : `No stored copy of ${url.slice(0, 300)} is visible to this identity.`,
        { url: url.slice(0, 300) },
        { alternatives: [{ tool: 'fetch_text', action: 'Read the URL now; that stores a copy.' }] },
      );
    }
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

  /** Tables of a stored read, parsed again from its raw bytes in the bounded pool. */
  async tables(caller: Caller, record: EvidenceRecord, tool: string): Promise<ExtractedTable[]> {
    return this.reparse(caller, record, tool, (input) => this.parser.extractTables(input));
  }

  /** JSON values of a stored read, parsed again from its raw bytes in the bounded pool. */
  async json(caller: Caller, record: EvidenceRecord, tool: string): Promise<ExtractedJson[]> {
    return this.reparse(caller, record, tool, (input) => this.parser.extractJson(input));
  }

  private async reparse<T>(
    caller: Caller,
    record: EvidenceRecord,
    tool: string,
    run: (input: { bytes: Uint8Array; contentType: string; url: string }) => Promise<T>,
  ): Promise<T> {
    const raw = await repo.loadBlob(this.database.db, record.bodyHash);
    if (!raw) throw new Error(`evidence ${record.id} has no stored body`);
    try {
      return await run({
        bytes: this.decode(raw, record.contentEncoding),
        contentType: record.contentType,
        url: record.canonicalUrl,
      });
    } catch (err) {
      const refusal = refusalOf(err);
      if (!refusal) throw err;
      throw await this.refuse(caller, tool, { evidence_id: record.id }, refusal);
    }
  }
}
