import { DomainError } from '../../kernel/errors.ts';
import type {
  ExtractedJson,
  ExtractedTable,
  NearMissMatch,
  Parser,
  QuoteMatch,
  TextDiff,
} from '../../parsing/types.ts';
import type { Database } from '../../storage/database.ts';
import type { Caller } from '../identity/types.ts';
import { type ReadRefusal, refusalOf } from './refusals.ts';
import * as repo from './repo.ts';
import type { EvidenceRecord } from './types.ts';

/** Undoes a stored body's content encoding with the fetcher's own caps. */
export type BodyDecoder = (raw: Buffer, contentEncoding: string | null) => Buffer;

/**
 * Work on stored evidence in the bounded parser pool (ReadingService.text): finding quotes and
 * their near-misses, diffs, and tables or JSON parsed again from the stored bytes. A busy pool or
 * a refused job becomes a refusal with its receipt, as for a fresh read (`refuse`), except for
 * locateAll, which runs inside another transaction.
 */
export class StoredText {
  constructor(
    private readonly database: Database,
    private readonly parser: Parser,
    private readonly decode: BodyDecoder,
    private readonly refuse: (
      caller: Caller,
      tool: string,
      inputs: Record<string, unknown>,
      refusal: ReadRefusal,
    ) => Promise<DomainError>,
  ) {}

  /** Finds a quote in stored evidence, in the bounded pool (folding a long text is real work). */
  async locate(
    caller: Caller,
    evidence: EvidenceRecord,
    quote: string,
    page?: number,
  ): Promise<QuoteMatch | null> {
    return this.bounded(caller, 'evidence_locate', { evidence_id: evidence.id }, () =>
      this.parser.locate({
        text: evidence.text,
        quote,
        pages: evidence.pages,
        ...(page !== undefined ? { page } : {}),
      }),
    );
  }

  /** Where stored evidence says almost what an absent quote says, in the bounded pool; null when nothing is close. */
  async nearMiss(
    caller: Caller,
    evidence: EvidenceRecord,
    quote: string,
    page?: number,
  ): Promise<NearMissMatch | null> {
    return this.bounded(caller, 'evidence_locate', { evidence_id: evidence.id }, () =>
      this.parser.nearMiss({
        text: evidence.text,
        quote,
        pages: evidence.pages,
        ...(page !== undefined ? { page } : {}),
      }),
    );
  }

  /**
   * Finds several quotes in one stored text in one pool job; null where a quote is absent. It
   * runs inside the caller's transaction (a submission's checks), so a busy pool is refused
   * without a receipt: checking a result is not a read, and nothing may write beside that
   * transaction.
   */
  async locateAll(evidence: EvidenceRecord, quotes: string[]): Promise<Array<QuoteMatch | null>> {
    if (quotes.length === 0) return [];
    try {
      return await this.parser.locateAll({ text: evidence.text, quotes, pages: evidence.pages });
    } catch (err) {
      const refusal = refusalOf(err);
      if (!refusal) throw err;
      throw new DomainError(refusal.code, refusal.message, refusal.details, {
        alternatives: [{ action: 'Submit again in a few seconds; nothing was recorded.' }],
        ...(refusal.retryable !== undefined ? { retryable: refusal.retryable } : {}),
      });
    }
  }

  /** A line diff of two stored texts, in the bounded pool. */
  async diff(caller: Caller, older: EvidenceRecord, newer: EvidenceRecord): Promise<TextDiff> {
    return this.bounded(caller, 'diff_since', { older: older.id, newer: newer.id }, () =>
      this.parser.diff({ oldName: older.id, newName: newer.id, oldText: older.text, newText: newer.text }),
    );
  }

  /** Runs pool work; a busy pool or a refused job becomes a refusal with its receipt. */
  private async bounded<T>(
    caller: Caller,
    tool: string,
    inputs: Record<string, unknown>,
    work: () => Promise<T>,
  ): Promise<T> {
    try {
      return await work();
    } catch (err) {
      const refusal = refusalOf(err);
      if (!refusal) throw err;
      throw await this.refuse(caller, tool, inputs, refusal);
    }
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
    return this.bounded(caller, tool, { evidence_id: record.id }, () =>
      run({
        bytes: this.decode(raw, record.contentEncoding),
        contentType: record.contentType,
        url: record.canonicalUrl,
      }),
    );
  }
}
