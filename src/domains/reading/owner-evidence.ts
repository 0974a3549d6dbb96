import { eq, or, type SQL } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import { withTenant } from '../../kernel/tenant.ts';
import { busyAsDegraded } from '../../parsing/busy.ts';
import type { LocateInput, NearMissMatch, QuoteMatch } from '../../parsing/types.ts';
import type { Database } from '../../storage/database.ts';
import { READING_LIMITS } from './limits.ts';
import { presentCitation, presentNearMiss } from './present.ts';
import * as repo from './repo.ts';
import { evidence as evidenceTable } from './tables.ts';
import type { EvidenceRecord, ReadCoverage } from './types.ts';

/** Characters of one preview page; a longer page is cut and says so (`truncated`). */
export const PREVIEW_PAGE_CHARS = 200_000;

/**
 * Evidence as a person signed in to the console sees it (`/v1/research/evidence/…`): their own
 * imports and everything shared into campaigns they own. The rule is one SQL predicate, applied
 * in the query that finds the row, so what another owner imported is the same NOT_FOUND as what
 * does not exist.
 */
export class OwnerEvidence {
  constructor(
    private readonly database: Database,
    private readonly parser: {
      locate(input: LocateInput): Promise<QuoteMatch | null>;
      nearMiss(input: LocateInput): Promise<NearMissMatch | null>;
    },
    private readonly coverage: ReadCoverage,
  ) {}

  async get(ownerId: string, evidenceId: string): Promise<EvidenceRecord> {
    const found = await repo.findVisibleEvidence(this.database.db, this.visibleTo(ownerId), evidenceId);
    if (!found) {
      throw new DomainError('NOT_FOUND', `No evidence ${evidenceId} of yours or of your campaigns.`, {
        evidence_id: evidenceId,
      });
    }
    return found;
  }

  /** The text of one page (PDF pages; the whole text is page 1 of anything else). */
  async preview(ownerId: string, evidenceId: string, page: number) {
    const e = await this.get(ownerId, evidenceId);
    const pageCount = Math.max(1, e.pages.length);
    if (page > pageCount) {
      throw new DomainError(
        'NOT_FOUND',
        `Evidence ${e.id} has ${pageCount} page${pageCount === 1 ? '' : 's'}; there is no page ${page}.`,
        { evidence_id: e.id, page, page_count: pageCount },
        { next: `Ask for a page from 1 to ${pageCount}.` },
      );
    }
    const { start, end } = pageBounds(e, page);
    const text = e.text.slice(start, Math.min(end, start + PREVIEW_PAGE_CHARS));
    return {
      evidence_id: e.id,
      page,
      page_count: pageCount,
      text,
      offset: start,
      truncated: end - start > PREVIEW_PAGE_CHARS,
      title: e.title,
      trust_label: e.trustLabel,
      provenance: e.provenance,
      flags: e.flags,
      citation: presentCitation(e),
    };
  }

  /** The exact bytes stored for the evidence, with the type they are served as. */
  async original(ownerId: string, evidenceId: string) {
    const e = await this.get(ownerId, evidenceId);
    const bytes = await repo.loadBlob(this.database.db, e.bodyHash);
    if (!bytes) throw new Error(`evidence ${e.id} has no stored bytes`);
    // A web read's bytes are as received, before content decoding: still compressed, they are
    // not what their content type says, so they travel as plain bytes.
    const contentType = e.contentEncoding
      ? 'application/octet-stream'
      : e.contentType || 'application/octet-stream';
    return { bytes, contentType, filename: `${e.id}${extensionOf(e)}` };
  }

  /** evidence_locate's matcher over one of the owner's pieces of evidence. */
  async locate(ownerId: string, evidenceId: string, quote: string, page?: number) {
    const e = await this.get(ownerId, evidenceId);
    if (page !== undefined && page > Math.max(1, e.pages.length)) {
      throw new DomainError('NOT_FOUND', `Evidence ${e.id} has no page ${page}.`, {
        evidence_id: e.id,
        page_count: Math.max(1, e.pages.length),
      });
    }
    const input = {
      text: e.text,
      quote,
      pages: e.pages,
      ...(page !== undefined && e.pages.length > 0 ? { page } : {}),
    };
    // The owner's own share of the parser, like its imports and its agents' calls (issue 40).
    const asOwner = <T>(job: () => Promise<T>) => withTenant(ownerId, () => busyAsDegraded(job));
    const found = await asOwner(() => this.parser.locate(input));
    if (!found) {
      const near = await asOwner(() => this.parser.nearMiss(input));
      return { evidence_id: e.id, found: false, match: null, near_miss: presentNearMiss(e.text, near) };
    }
    return {
      evidence_id: e.id,
      found: true,
      match: found.match,
      offset: found.offset,
      length: found.length,
      page: found.page,
      matched_text: e.text.slice(found.offset, found.offset + found.length),
      citation: presentCitation(e),
    };
  }

  private visibleTo(ownerId: string): SQL {
    const campaigns = this.coverage.ownerEvidence(ownerId);
    const own = eq(evidenceTable.ownerId, ownerId);
    return (campaigns ? or(own, campaigns) : own) as SQL;
  }
}

/** Where page N starts and ends in the stored text. */
function pageBounds(e: EvidenceRecord, page: number): { start: number; end: number } {
  if (e.pages.length === 0) return { start: 0, end: e.text.length };
  const at = e.pages.findIndex((p) => p.page === page);
  const start = e.pages[at]?.offset ?? 0;
  const end = e.pages[at + 1]?.offset ?? e.text.length;
  return { start, end };
}

const EXTENSIONS: Record<string, string> = {
  pdf: '.pdf',
  png: '.png',
  jpeg: '.jpg',
  text: '.txt',
  log: '.log',
  html: '.html',
  cyclonedx: '.cdx.json',
  spdx: '.spdx.json',
};

function extensionOf(e: EvidenceRecord): string {
  if (e.importFormat === 'snapshot') return e.contentType.startsWith('multipart/') ? '.mhtml' : '.html';
  return EXTENSIONS[e.importFormat ?? e.kind] ?? '.bin';
}

/** The query limits of the preview (SPEC: page 1-40). */
export const PREVIEW_PAGES = READING_LIMITS.previewPage;
