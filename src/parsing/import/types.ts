/**
 * The contract of research imports (SPEC "Security research", limits row "Research imports"):
 * an owner's file, its declared format if any, and what the parsing job makes of it. Content
 * refusals are values, not exceptions, so they keep their code across the thread boundary and
 * the caller can map each one to VALIDATION_FAILED or PAYLOAD_TOO_LARGE without guessing.
 */
import type { ParsedDocument, ParseRefusal } from '../types.ts';

export const IMPORT_FORMATS = [
  'pdf',
  'png',
  'jpeg',
  'text',
  'html',
  'snapshot',
  'log',
  'cyclonedx',
  'spdx',
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportInput {
  /** The file as uploaded (`data_base64` decoded, or `text` encoded as UTF-8). */
  bytes: Uint8Array;
  /** The format the owner declared; omitted means inferred from the bytes. */
  format?: ImportFormat;
  /** The Content-Type sent with the file, or '' when none; consulted after the bytes. */
  contentType: string;
  /** OCR images always; for PDFs, OCR the pages whose text layer is empty. */
  ocr?: boolean;
}

/** What an accepted import reads as. Text, offsets and flags are ParsedDocument's. */
export interface ImportedDocument
  extends Pick<
    ParsedDocument,
    'text' | 'pages' | 'title' | 'transformations' | 'flags' | 'instructionSpans'
  > {
  format: ImportFormat;
  /** PDF pages, 1 for everything else (the whole text is page 1 for previews). */
  pageCount: number;
  /** The page a snapshot was captured from, when the capture names it (http or https only). */
  capturedUrl?: string;
  /** Lines of a log (a final newline does not start another line). */
  lineCount?: number;
  /** PDF pages with no text layer that were not OCR'd (ocr was false): a hint to import again with ocr. */
  pagesWithoutText?: number[];
  /** SBOMs: the specification version and how many components became evidence lines. */
  sbom?: { specVersion: string; components: number };
  /**
   * The kind of the first credential-shaped string in the text (kernel/credential-scan.ts; a
   * Cairn token comes first when there is one), or null. Set by the import job.
   */
  credential?: string | null;
}

export type ImportRefusalCode =
  /** Over IMPORT_LIMITS.fileBytes. */
  | 'IMPORT_TOO_LARGE'
  /** A PDF over IMPORT_LIMITS.pdfPages (refused whole, never cut). */
  | 'TOO_MANY_PAGES'
  /** A log over IMPORT_LIMITS.logLines (refused whole, never cut). */
  | 'TOO_MANY_LINES'
  /** An image over IMPORT_LIMITS.embeddedImagePixels. */
  | 'IMAGE_TOO_LARGE'
  /** A PDF page over IMPORT_LIMITS.pagePixels. */
  | 'PAGE_TOO_LARGE'
  /** The declared format contradicts what the bytes are. */
  | 'FORMAT_MISMATCH'
  /** The bytes are none of the import formats (a GIF, a zip, an executable…). */
  | 'UNSUPPORTED_FORMAT'
  /** A text format whose bytes are not valid UTF-8 (and declare no other charset). */
  | 'INVALID_UTF8'
  /** A CycloneDX or SPDX document that fails its official schema (details.errors has the paths). */
  | 'SBOM_INVALID'
  /** Empty, corrupt, encrypted, or the parser failed on it. */
  | 'UNREADABLE'
  /** Parsing took longer than the pool's time limit. */
  | 'PARSE_TIMEOUT';

export interface ImportRefusal {
  code: ImportRefusalCode;
  /** One sentence saying what is wrong with the file. */
  message: string;
  /** What the caller can do about it. */
  next: string;
  /** True for size limits (PAYLOAD_TOO_LARGE); false for anything else (VALIDATION_FAILED). */
  tooLarge: boolean;
  details: Record<string, unknown>;
}

export type ImportOutcome = { ok: true; document: ImportedDocument } | { ok: false; refusal: ImportRefusal };

const TOO_LARGE: ReadonlySet<ImportRefusalCode> = new Set([
  'IMPORT_TOO_LARGE',
  'TOO_MANY_PAGES',
  'TOO_MANY_LINES',
  'IMAGE_TOO_LARGE',
  'PAGE_TOO_LARGE',
]);

/** Thrown inside the parsing job and turned into `{ok: false}` at its edge. */
export class ImportRefused extends Error {
  readonly refusal: ImportRefusal;
  constructor(code: ImportRefusalCode, message: string, next: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'ImportRefused';
    this.refusal = { code, message, next, tooLarge: TOO_LARGE.has(code), details };
  }
}

/** A job the pool itself failed (over its time limit, or its thread died on the file) as an import refusal. */
export function importRefusalOf(error: ParseRefusal): ImportRefusal {
  const timeout = error.reason === 'PARSE_TIMEOUT';
  return new ImportRefused(
    timeout ? 'PARSE_TIMEOUT' : 'UNREADABLE',
    error.message,
    timeout
      ? 'Import a smaller or simpler file (fewer pages, or without OCR).'
      : 'Check that the file opens and is the format it says.',
    error.details,
  ).refusal;
}
