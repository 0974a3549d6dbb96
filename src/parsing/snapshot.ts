/**
 * Browser snapshots: an MHTML archive or a single-file HTML capture (SingleFile, "Save page as
 * complete HTML"). The captured page goes through the same HTML path as a fetched page (hidden
 * text removed and flagged, instruction-like content annotated), and the URL the capture names
 * is handed back so the caller can show it as the source, labelled as the owner's claim.
 */
import { charsetFromMeta } from './content-type.ts';
import { parseHtml } from './html/html.ts';
import { isMhtml } from './import/infer.ts';
import { decodeImportText } from './import/text.ts';
import type { ImportedDocument } from './import/types.ts';
import { readMhtml } from './mail/mhtml.ts';
import type { ParsedDocument } from './types.ts';

const MAX_URL_CHARS = 2048;

/** The URL if it is an absolute http(s) URL without credentials, normalised; else null. */
export function capturedUrlOf(candidate: string | null | undefined): string | null {
  if (!candidate) return null;
  const trimmed = candidate.trim();
  if (trimmed.length > MAX_URL_CHARS) return null;
  try {
    const url = new URL(trimmed);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    // A URL with a user name or password is not something to republish as a source.
    if (url.username || url.password) return null;
    return url.href;
  } catch {
    return null;
  }
}

/** The URL a single-file capture names: `saved from url=(NNNN)URL` or SingleFile's `url: URL` line. */
export function singleFileUrl(head: string): string | null {
  const savedFrom = /<!--\s*saved from url=\(\d+\)\s*(\S+?)\s*-->/i.exec(head);
  if (savedFrom) return savedFrom[1] ?? null;
  const singleFile = /<!--\s*Page saved with SingleFile\s[\s\S]*?^\s*url:\s*(\S+)[\s\S]*?-->/im.exec(head);
  return singleFile?.[1] ?? null;
}

/**
 * Refuses HTML that names no charset (part header, Content-Type, BOM or `<meta>`) and is not valid
 * UTF-8, and returns the charset the HTML path should use.
 */
export function checkHtmlEncoding(bytes: Uint8Array, charset: string | null): string | null {
  const named = charset ?? charsetFromMeta(bytes);
  const bom = bytes[0] === 0xfe || bytes[0] === 0xff;
  if (!bom) decodeImportText(bytes, named);
  return charset;
}

/** Parses a snapshot; the capture's title and text as the HTML path reads them. */
export function parseSnapshot(bytes: Uint8Array, charset: string | null): ImportedDocument {
  const head = Buffer.from(bytes.subarray(0, 64 * 1024)).toString('latin1');
  let parsed: ParsedDocument;
  let location: string | null;
  let transformation: string;
  if (isMhtml(head)) {
    const root = readMhtml(bytes);
    parsed = parseHtml(root.html, checkHtmlEncoding(root.html, root.charset));
    location = root.location;
    transformation = 'MHTML_ROOT_PART';
  } else {
    parsed = parseHtml(bytes, checkHtmlEncoding(bytes, charset));
    location = singleFileUrl(head);
    transformation = 'SINGLE_FILE_HTML';
  }
  const capturedUrl = capturedUrlOf(location);
  return {
    format: 'snapshot',
    text: parsed.text,
    pages: [],
    pageCount: 1,
    title: parsed.title,
    ...(capturedUrl ? { capturedUrl } : {}),
    transformations: [transformation, ...parsed.transformations],
    flags: parsed.flags,
    instructionSpans: parsed.instructionSpans,
  };
}
