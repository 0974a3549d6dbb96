import { createHash } from 'node:crypto';
import type { Clock } from '../../kernel/clock.ts';
import { findCredential } from '../../kernel/credential-scan.ts';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { withTenant } from '../../kernel/tenant.ts';
import { busyAsDegraded } from '../../parsing/busy.ts';
import {
  IMPORT_LIMITS,
  type ImportedDocument,
  type ImportFormat,
  type ImportInput,
  type ImportOutcome,
} from '../../parsing/index.ts';
import type { Database, Executor } from '../../storage/database.ts';
import * as repo from './repo.ts';
import type { EvidenceRecord, ImportBinding, Importer, ReadCoverage } from './types.ts';

/**
 * Research imports (SPEC "Security research"; issue 16 item 1): a person's file in the console
 * (OWNER_IMPORT) or an agent's through evidence_submit (AGENT_SUBMITTED) becomes evidence like a
 * read: the exact bytes content-addressed, the text parsed in the bounded pool, labelled
 * UNVERIFIED for authenticity (nobody checked where the file came from), bound to the campaign
 * and task named and visible under that campaign's mode.
 */

export interface ImportRequest {
  importer: Importer;
  bytes: Uint8Array;
  contentType: string;
  format?: ImportFormat | undefined;
  ocr?: boolean | undefined;
  title?: string | undefined;
  sourceDate?: Date | undefined;
  authorized?: boolean | undefined;
  sourceUrl?: string | undefined;
  campaignId?: string | undefined;
  taskId?: string | undefined;
}

/** The pool's import job: what this service needs of the parser. */
export interface ImportParser {
  parseImport(input: ImportInput): Promise<ImportOutcome>;
}

export const IMPORT_TRUST_LABEL = 'UNVERIFIED';

/** What every import answer says of its authenticity, for people and agents alike. */
export const IMPORT_AUTHENTICITY =
  'UNVERIFIED: Cairn stored these bytes as given and did not check where they came from.';

/** What an import is, as both the HTTP import and evidence_submit answer it. */
export function presentImport(evidence: EvidenceRecord, document: ImportedDocument) {
  return {
    provenance: evidence.provenance,
    trust_label: evidence.trustLabel,
    authenticity: IMPORT_AUTHENTICITY,
    format: document.format,
    title: evidence.title,
    page_count: document.pageCount,
    ...(document.lineCount !== undefined ? { line_count: document.lineCount } : {}),
    ...(document.pagesWithoutText?.length ? { pages_without_text: document.pagesWithoutText } : {}),
    ...(document.sbom
      ? { sbom: { spec_version: document.sbom.specVersion, components: document.sbom.components } }
      : {}),
    total_chars: evidence.text.length,
    body_hash: evidence.bodyHash,
    source_url: evidence.canonicalUrl.startsWith('urn:') ? null : evidence.canonicalUrl,
    source_date: evidence.sourceDate?.toISOString() ?? null,
    authorized: evidence.authorized,
    flags: evidence.flags,
  };
}

export class ImportService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly parser: ImportParser,
    private readonly coverage: ReadCoverage,
  ) {}

  /**
   * Parses, stores and shares one import; returns the stored record (without the bytes). With
   * `ex`, the caller's open transaction (a mutating tool: evidence_submit), the checks and the
   * storing run in it, so the import commits or rolls back with the call's idempotency record.
   */
  async importFile(
    req: ImportRequest,
    ex?: Executor,
  ): Promise<{ evidence: EvidenceRecord; document: ImportedDocument }> {
    // An owner's own import is its share of the parser; an agent's already runs in its owner's.
    if ('ownerId' in req.importer) {
      const ownerId = req.importer.ownerId;
      return withTenant(ownerId, () => this.importChecked(req, ex));
    }
    return this.importChecked(req, ex);
  }

  private async importChecked(
    req: ImportRequest,
    ex?: Executor,
  ): Promise<{ evidence: EvidenceRecord; document: ImportedDocument }> {
    if (req.bytes.length > IMPORT_LIMITS.fileBytes) throw tooLarge(req.bytes.length);
    if (req.bytes.length === 0) {
      throw new DomainError(
        'VALIDATION_FAILED',
        'The file is empty.',
        { reason: 'EMPTY_FILE' },
        {
          next: 'Send the file in data_base64 (or its text in text).',
        },
      );
    }
    // Who may import where is checked before the parse, so a refusal costs no parsing. In the
    // caller's transaction that check is final; on its own, it is made again when storing.
    const early = await this.coverage.bindImport(
      ex ?? this.database.db,
      req.importer,
      req.campaignId,
      req.taskId,
      { forChange: ex !== undefined },
    );
    const document = await this.parse(req);
    // Scanned in the parser thread beside the parse (a text of megabytes would hold the event
    // loop); a parser that did not scan it is made up for here.
    const credential =
      document.credential === undefined ? (findCredential(document.text)?.kind ?? null) : document.credential;
    // An agent's file meets the rule every tool argument meets: the runner scans `text`, and the
    // same text sent as base64 must not get past it.
    if ('caller' in req.importer) {
      if (credential) {
        throw new DomainError(
          'CREDENTIAL_IN_INPUT',
          `The file contains what looks like a credential (${credential}). It was not stored.`,
          { path: 'data_base64', kind: credential },
          {
            next: 'Remove the credential from the file and submit it again.',
            alternatives: [
              { tool: 'evidence_submit', action: 'Submit the file again without the credential.' },
            ],
          },
        );
      }
    } else if (credential === 'CAIRN_TOKEN') {
      // An owner's research file may quote others' leaked secrets (that is often the finding),
      // but a Cairn credential is never evidence: members would read a key that works here.
      throw new DomainError(
        'CREDENTIAL_IN_INPUT',
        'The file contains a Cairn credential (an agent key or token). It was not stored.',
        { path: 'file', kind: credential },
        {
          next: 'Remove the credential from the file (and revoke it if it was real: anyone who saw the file has it), then import the file again.',
        },
      );
    }
    const now = this.clock.now();
    const unbound = buildImport(req, document, now);
    const store = async (tx: Executor, checked?: ImportBinding) => {
      const binding =
        checked ??
        (await this.coverage.bindImport(tx, req.importer, req.campaignId, req.taskId, { forChange: true }));
      const record = { ...unbound, campaignId: binding.campaignId, taskId: binding.taskId };
      // A view on the bytes, not a copy: they may run to 12 MiB.
      const bytes = Buffer.from(req.bytes.buffer, req.bytes.byteOffset, req.bytes.byteLength);
      await repo.storeBlob(tx, record.bodyHash, bytes, now, this.database.kind);
      await repo.insertEvidence(tx, record, now);
      await this.coverage.recordImport(tx, binding, req.importer, importLabel(record), now);
      return record;
    };
    const evidence = ex ? await store(ex, early) : await this.database.transaction((tx) => store(tx));
    return { evidence, document };
  }

  private async parse(req: ImportRequest): Promise<ImportedDocument> {
    const outcome: ImportOutcome = await busyAsDegraded(() =>
      this.parser.parseImport({
        bytes: req.bytes,
        contentType: req.contentType,
        ...(req.format ? { format: req.format } : {}),
        ...(req.ocr !== undefined ? { ocr: req.ocr } : {}),
      }),
    );
    if (!outcome.ok) {
      const r = outcome.refusal;
      // Too costly to parse is the document's nature, not its size nor a bad field (issue 40).
      throw new DomainError(
        r.code === 'PARSE_TIMEOUT'
          ? 'DOCUMENT_TOO_COMPLEX'
          : r.tooLarge
            ? 'PAYLOAD_TOO_LARGE'
            : 'VALIDATION_FAILED',
        r.message,
        { ...r.details, reason: r.code },
        { next: r.next },
      );
    }
    return outcome.document;
  }
}

function importLabel(e: EvidenceRecord) {
  return { id: e.id, provenance: e.provenance, format: e.importFormat ?? 'text' };
}

/** The evidence row of an accepted import, before its campaign binding is final. */
function buildImport(req: ImportRequest, doc: ImportedDocument, now: Date): EvidenceRecord {
  const id = newId('evd', now);
  const byOwner = 'ownerId' in req.importer;
  // The source the importer named, else where a snapshot says it was captured, else a URN that
  // says what this is and can never be fetched.
  const source = req.sourceUrl ?? doc.capturedUrl ?? `urn:cairn:import:${id}`;
  return {
    id,
    agentId: 'caller' in req.importer ? req.importer.caller.agent.id : null,
    ownerId: 'ownerId' in req.importer ? req.importer.ownerId : null,
    provenance: byOwner ? 'OWNER_IMPORT' : 'AGENT_SUBMITTED',
    trustLabel: IMPORT_TRUST_LABEL,
    requestedUrl: source,
    canonicalUrl: source,
    retrievedAt: now,
    httpStatus: null,
    bodyHash: `sha256:${createHash('sha256').update(req.bytes).digest('hex')}`,
    contentType: contentTypeOf(doc.format, req.bytes),
    contentEncoding: null,
    kind: doc.format,
    title: (req.title ?? doc.title)?.slice(0, 500) ?? null,
    text: doc.text,
    pages: doc.pages,
    transformations: doc.transformations,
    flags: doc.flags,
    instructionSpans: doc.instructionSpans.slice(0, 100),
    hops: [],
    declaredPurpose: 'import',
    taskId: null,
    campaignId: null,
    receiptId: null,
    importFormat: doc.format,
    sourceDate: req.sourceDate ?? null,
    authorized: req.authorized ?? null,
  };
}

const CONTENT_TYPES: Record<ImportFormat, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
  text: 'text/plain; charset=utf-8',
  html: 'text/html; charset=utf-8',
  snapshot: 'multipart/related',
  log: 'text/plain; charset=utf-8',
  cyclonedx: 'application/vnd.cyclonedx+json',
  spdx: 'application/spdx+json',
};

/**
 * The type the original is served with: the format's own, never the uploader's word, so a file
 * cannot choose how a browser treats it. A snapshot is MHTML when its header says so, else HTML.
 */
function contentTypeOf(format: ImportFormat, bytes: Uint8Array): string {
  if (format !== 'snapshot') return CONTENT_TYPES[format];
  const head = Buffer.from(bytes.subarray(0, 4_096)).toString('latin1');
  return /^content-type:\s*multipart\/related/im.test(head)
    ? 'multipart/related'
    : 'text/html; charset=utf-8';
}

function tooLarge(bytes: number): DomainError {
  return new DomainError(
    'PAYLOAD_TOO_LARGE',
    `The file is ${bytes} bytes; imports are accepted up to ${IMPORT_LIMITS.fileBytes} bytes (12 MiB).`,
    { reason: 'IMPORT_TOO_LARGE', bytes, max_bytes: IMPORT_LIMITS.fileBytes },
    { next: 'Import a smaller file, or split it (a PDF into parts of at most 40 pages).' },
  );
}
