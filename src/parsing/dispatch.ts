/**
 * Chooses the parser for a body from its Content-Type and its first bytes together. Binary
 * signatures win (a PDF served as application/octet-stream is still a PDF); a declared text type
 * is otherwise honoured (HTML served as text/plain stays text); anything else is refused.
 */
import { looksLikeText, parseMediaType, sniffBytes } from './content-type.ts';
import { decodeHtml, parseHtml, parseHtmlDocument } from './html/html.ts';
import { extractHtmlJson } from './json-extract.ts';
import { extractHtmlTables } from './tables.ts';
import { parseJson, parsePlainText, readJsonValue } from './text.ts';
import {
  type ExtractedJson,
  type ExtractedTable,
  type ParsedDocument,
  type ParseInput,
  ParseRefusal,
} from './types.ts';

export type BodyFormat = 'html' | 'text' | 'json' | 'pdf' | 'png' | 'jpeg';

/** Declared types read as plain text (besides text/*). */
const TEXT_TYPES = new Set(['application/xml', 'application/x-ndjson', 'application/csv']);
/** Declared types that say nothing about the content, so the bytes decide. */
const UNDECLARED = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown']);

const isJsonType = (mime: string): boolean =>
  mime === 'application/json' || mime === 'text/json' || mime.endsWith('+json');

function refuse(mime: string, detected: string | null): never {
  const named = mime || 'none';
  throw new ParseRefusal(
    'UNSUPPORTED_CONTENT_TYPE',
    `Content type ${named}${detected ? ` (content looks like ${detected})` : ''} is not supported; Cairn reads HTML, text, JSON, PDF, PNG and JPEG.`,
    detected ? { content_type: named, detected } : { content_type: named },
  );
}

/**
 * Which parser reads this body, and with which declared charset.
 * @throws ParseRefusal UNSUPPORTED_CONTENT_TYPE naming the type (details.content_type).
 */
export function chooseFormat(input: ParseInput): { format: BodyFormat; charset: string | null } {
  const { mime, charset } = parseMediaType(input.contentType);
  const sniffed = sniffBytes(input.bytes);
  if (sniffed === 'pdf' || sniffed === 'png' || sniffed === 'jpeg') return { format: sniffed, charset };
  if (sniffed && sniffed !== 'html' && !looksLikeText(input.bytes)) refuse(mime, sniffed);
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return { format: 'html', charset };
  if (isJsonType(mime)) return { format: 'json', charset };
  if (mime === 'application/pdf') return { format: 'pdf', charset };
  if (mime === 'image/png' || mime === 'image/jpeg') {
    throw new ParseRefusal(
      'UNREADABLE_CONTENT',
      `The body is declared ${mime} but is not that image format.`,
      {
        content_type: mime,
      },
    );
  }
  if (
    mime.startsWith('text/') ||
    TEXT_TYPES.has(mime) ||
    (mime.endsWith('+xml') && !mime.startsWith('image/'))
  ) {
    return { format: 'text', charset };
  }
  if (UNDECLARED.has(mime)) {
    if (sniffed === 'html') return { format: 'html', charset };
    if (mime === '' && looksLikeText(input.bytes)) return { format: 'text', charset };
  }
  return refuse(mime, null);
}

/** Parses a body into sanitised text; see ParsedDocument. Runs inside the parser pool. */
export async function parseBody(input: ParseInput): Promise<ParsedDocument> {
  const { format, charset } = chooseFormat(input);
  switch (format) {
    case 'html':
      return parseHtml(input.bytes, charset);
    case 'text':
      return parsePlainText(input.bytes, charset);
    case 'json':
      return parseJson(input.bytes, charset);
    case 'pdf': {
      // Loaded on first use so a thread that only reads HTML never pays for pdf.js.
      const { parsePdf } = await import('./pdf.ts');
      // pagesWithoutText is for imports; a read's document keeps ParsedDocument's fields only.
      const { pagesWithoutText: _, ...document } = await parsePdf(input.bytes);
      return document;
    }
    case 'png':
    case 'jpeg': {
      const { parseImage } = await import('./image.ts');
      return parseImage(input.bytes, format);
    }
  }
}

/** The tables of an HTML body; other formats have none. */
export function extractBodyTables(input: ParseInput): ExtractedTable[] {
  const { format, charset } = chooseFormat(input);
  if (format !== 'html') return [];
  return extractHtmlTables(parseHtmlDocument(decodeHtml(input.bytes, charset)));
}

/** A JSON body as one DOCUMENT value; an HTML body's JSON-LD and embedded JSON scripts; else none. */
export function extractBodyJson(input: ParseInput): ExtractedJson[] {
  const { format, charset } = chooseFormat(input);
  if (format === 'json')
    return [{ source: 'DOCUMENT', index: 0, value: readJsonValue(input.bytes, charset) }];
  if (format !== 'html') return [];
  return extractHtmlJson(parseHtmlDocument(decodeHtml(input.bytes, charset)));
}
