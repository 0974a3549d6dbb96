/**
 * Which import format a file is. The bytes decide first (signatures, then the shape of the
 * text), the Content-Type only after them, and a declared format must agree with the bytes:
 * `format: png` on a PDF is refused, never read as something else, so what is stored is what the
 * owner said it was.
 */
import { looksLikeText, parseMediaType, sniffBytes } from '../content-type.ts';
import { looksLikeLog } from './text.ts';
import { type ImportFormat, type ImportRefusal, ImportRefused } from './types.ts';

/** What the bytes are before any text reading: a binary format we import, text, or something else. */
type Family = 'pdf' | 'png' | 'jpeg' | 'text' | { other: string };

const BINARY_FORMATS = new Set<ImportFormat>(['pdf', 'png', 'jpeg']);
const HEAD_BYTES = 64 * 1024;

const latin1Head = (bytes: Uint8Array): string =>
  Buffer.from(bytes.subarray(0, HEAD_BYTES))
    .toString('latin1')
    .replace(/^\xEF\xBB\xBF/, '');

function familyOf(bytes: Uint8Array): Family {
  const sniffed = sniffBytes(bytes);
  if (sniffed === 'pdf' || sniffed === 'png' || sniffed === 'jpeg') return sniffed;
  if (sniffed && sniffed !== 'html') return { other: sniffed };
  // An MHTML archive may carry binary parts (Content-Transfer-Encoding: binary); its headers are text.
  if (!looksLikeText(bytes) && !isMhtml(latin1Head(bytes))) return { other: 'binary' };
  return 'text';
}

/** MHTML (RFC 2557): a leading block of MIME headers whose Content-Type is multipart/related. */
export function isMhtml(head: string): boolean {
  const end = head.search(/\r?\n\r?\n/);
  const block = end === -1 ? head : head.slice(0, end);
  // Every line of the block is a header or a folded continuation, else it is not a header block.
  if (
    !/^[!-9;-~]+:/.test(block) ||
    !block.split(/\r?\n/).every((line) => /^(?:[!-9;-~]+:|[ \t])/.test(line))
  ) {
    return false;
  }
  return /^content-type:\s*multipart\/related\b/im.test(block);
}

const SAVED_FROM = /<!--\s*saved from url=\(\d+\)/i;
const SINGLE_FILE = /<!--\s*Page saved with SingleFile/i;
const DATA_URI_ATTRIBUTE = /\s(?:src|href|srcset)\s*=\s*["']?\s*data:/i;
const FETCHING_SRC = /\ssrc\s*=\s*["']?\s*(?!data:|#|["'])/i;

/**
 * A single-file capture: a browser's or SingleFile's "saved from" comment, or an HTML page that
 * inlines its resources as data URIs and fetches nothing by `src`.
 */
export function isSingleFileHtml(head: string): boolean {
  if (SAVED_FROM.test(head) || SINGLE_FILE.test(head)) return true;
  return /<html[\s>]/i.test(head) && DATA_URI_ATTRIBUTE.test(head) && !FETCHING_SRC.test(head);
}

/** Looks like HTML at all (for a declared html or snapshot): a document start or a tag early on. */
const looksLikeHtml = (head: string): boolean =>
  /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body)[\s>]/i.test(head) ||
  /<html[\s>]/i.test(head.slice(0, 4096));

/** cyclonedx or spdx when the text is a JSON object carrying that SBOM's marker field; else null. */
export function detectSbomFormat(bytes: Uint8Array): 'cyclonedx' | 'spdx' | null {
  const head = latin1Head(bytes).trimStart();
  if (!head.startsWith('{') || !/"(?:bomFormat|spdxVersion)"/.test(head)) return null;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes).replace(/^\uFEFF/, ''));
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  if (record.bomFormat === 'CycloneDX') return 'cyclonedx';
  if (typeof record.spdxVersion === 'string' && record.spdxVersion.startsWith('SPDX-')) return 'spdx';
  return null;
}

/** What the bytes alone say, for text: snapshot, html, an SBOM, log, or plain text. */
function textFormatOf(bytes: Uint8Array, head: string): ImportFormat {
  if (isMhtml(head)) return 'snapshot';
  if (sniffBytes(bytes) === 'html') return isSingleFileHtml(head) ? 'snapshot' : 'html';
  const sbom = detectSbomFormat(bytes);
  if (sbom) return sbom;
  // Sampled on the latin-1 view: the patterns are ASCII, and decoding strictly is the parser's job.
  return looksLikeLog(head) ? 'log' : 'text';
}

const describe = (family: Family): string =>
  typeof family === 'string' ? (family === 'text' ? 'text' : `a ${family.toUpperCase()}`) : family.other;

function mismatch(declared: ImportFormat, actual: string, why?: string): never {
  throw new ImportRefused(
    'FORMAT_MISMATCH',
    `The file was declared ${declared} but ${why ?? `its bytes are ${actual}`}.`,
    'Send the file with the format it really is, or omit format to have it inferred.',
    { declared, detected: actual },
  );
}

function unsupported(what: string, contentType: string): never {
  throw new ImportRefused(
    'UNSUPPORTED_FORMAT',
    `The file is ${what}, which is not an import format.`,
    'Import PDF, PNG, JPEG, text, HTML, a browser snapshot (MHTML or single-file HTML), a log, or a CycloneDX or SPDX JSON SBOM.',
    { detected: what, content_type: contentType || 'none' },
  );
}

/** A declared format checked against the bytes; returns it when they agree. */
function checkDeclared(
  declared: ImportFormat,
  family: Family,
  bytes: Uint8Array,
  head: string,
): ImportFormat {
  if (BINARY_FORMATS.has(declared) || family !== 'text') {
    if (family !== declared) mismatch(declared, describe(family));
    return declared;
  }
  const mhtml = isMhtml(head);
  switch (declared) {
    case 'snapshot':
      if (!mhtml && !looksLikeHtml(head)) mismatch(declared, 'text', 'it is neither MHTML nor HTML');
      return declared;
    case 'html':
      if (mhtml) mismatch(declared, 'snapshot', 'it is an MHTML archive (declare snapshot)');
      return declared;
    case 'cyclonedx':
    case 'spdx': {
      // Only contradictions are refused here; whether it is a valid SBOM is the SBOM validator's call.
      if (!head.trimStart().startsWith('{')) mismatch(declared, 'text', 'it is not a JSON object');
      const sbom = detectSbomFormat(bytes);
      if (sbom && sbom !== declared)
        mismatch(declared, sbom, `it is an ${sbom === 'spdx' ? 'SPDX' : 'CycloneDX'} document`);
      return declared;
    }
    default:
      // text and log: any text is acceptable as either.
      return declared;
  }
}

/**
 * The import format of a file: the declared one when the bytes agree with it, else inferred.
 * @throws ImportRefused UNREADABLE (empty), FORMAT_MISMATCH (declared contradicts the bytes, or
 *   the Content-Type names PDF/PNG/JPEG and the bytes are not), UNSUPPORTED_FORMAT (no import format).
 */
export function resolveImportFormat(
  bytes: Uint8Array,
  contentType: string,
  declared?: ImportFormat,
): ImportFormat {
  if (bytes.length === 0) {
    throw new ImportRefused('UNREADABLE', 'The file is empty.', 'Send the file with its content.', {});
  }
  const family = familyOf(bytes);
  const head = latin1Head(bytes);
  if (declared) return checkDeclared(declared, family, bytes, head);
  if (typeof family === 'string' && family !== 'text') return family;
  if (typeof family !== 'string') unsupported(family.other, contentType);
  const fromBytes = textFormatOf(bytes, head);
  if (fromBytes !== 'text') return fromBytes;
  // Only now the Content-Type: it can make text HTML, but never make text a binary format.
  const { mime } = parseMediaType(contentType);
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime === 'application/pdf' || mime === 'image/png' || mime === 'image/jpeg') {
    throw new ImportRefused(
      'FORMAT_MISMATCH',
      `The file was sent as ${mime} but its bytes are text.`,
      'Send the file itself (base64 in data_base64), not a text rendering of it.',
      { content_type: mime, detected: 'text' },
    );
  }
  return 'text';
}

/** resolveImportFormat as a value: the format, or the refusal with its code and next move. */
export function inferImportFormat(
  bytes: Uint8Array,
  contentType: string,
  declared?: ImportFormat,
): { ok: true; format: ImportFormat } | { ok: false; refusal: ImportRefusal } {
  try {
    return { ok: true, format: resolveImportFormat(bytes, contentType, declared) };
  } catch (error) {
    if (error instanceof ImportRefused) return { ok: false, refusal: error.refusal };
    throw error;
  }
}
