/**
 * MHTML (RFC 2557: a multipart/related MIME message, as Chrome's "Save as single file" writes).
 * Only the root HTML part is decoded: the other parts are the page's images and styles, which
 * the text path would drop anyway. The file is read as latin-1 so each character is one byte
 * and a part's bytes can be recovered exactly before its own charset is applied.
 */
import { ImportRefused } from '../import/types.ts';

export interface MhtmlRoot {
  /** The root part's body, transfer-decoded. */
  html: Uint8Array;
  /** The root part's charset parameter, if any. */
  charset: string | null;
  /** Where the page was captured from (Snapshot-Content-Location, else a Content-Location). */
  location: string | null;
  /** Parts in the message, root included. */
  partCount: number;
}

interface Part {
  headers: Map<string, string>;
  body: string;
}

/** More parts than any saved page has; past it the archive is refused rather than walked. */
const MAX_PARTS = 20_000;

const unreadable = (why: string): ImportRefused =>
  new ImportRefused(
    'UNREADABLE',
    `The MHTML snapshot could not be read: ${why}.`,
    "Save the page again with the browser's 'single file' option, or import it as HTML.",
    { format: 'snapshot' },
  );

/** Headers up to the first blank line, unfolded (RFC 5322 §2.2.3); names lower case, first wins. */
function readHeaders(source: string): { headers: Map<string, string>; rest: string } {
  const match = /\r?\n\r?\n/.exec(source);
  const block = match ? source.slice(0, match.index) : source;
  const rest = match ? source.slice(match.index + match[0].length) : '';
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, rest };
}

/** A parameter of a structured header value (`type; name="value"`), unquoted. */
export function headerParam(value: string, name: string): string | null {
  const pattern = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i');
  const match = pattern.exec(value);
  return match ? (match[1] ?? match[2] ?? null) : null;
}

const mediaType = (part: Part): string =>
  (part.headers.get('content-type') ?? 'text/plain').split(';')[0]!.trim().toLowerCase();

/** The body parts between the boundary delimiters; the preamble and epilogue are dropped. */
function splitParts(body: string, boundary: string): Part[] {
  const delimiter = `--${boundary}`;
  const parts: Part[] = [];
  let at = body.indexOf(delimiter);
  if (at === -1) throw unreadable('its boundary never occurs');
  while (at !== -1) {
    let start = at + delimiter.length;
    if (body.startsWith('--', start)) break; // the close delimiter
    // Transport padding and the line break after the delimiter belong to it.
    const lineEnd = body.indexOf('\n', start);
    if (lineEnd === -1) break;
    start = lineEnd + 1;
    const next = body.indexOf(`\n${delimiter}`, start);
    const end = next === -1 ? body.length : next;
    // The CRLF before the next delimiter belongs to the delimiter (RFC 2046 §5.1.1).
    const raw = body.slice(start, end).replace(/\r$/, '');
    const { headers, rest } = readHeaders(raw);
    parts.push({ headers, body: rest });
    if (parts.length > MAX_PARTS) throw unreadable(`it has more than ${MAX_PARTS} parts`);
    at = next === -1 ? -1 : next + 1;
  }
  return parts;
}

/** Undoes a part's Content-Transfer-Encoding (base64, quoted-printable; 7bit/8bit/binary as is). */
export function decodeTransfer(body: string, encoding: string): Uint8Array {
  switch (encoding.trim().toLowerCase()) {
    case 'base64':
      return new Uint8Array(Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64'));
    case 'quoted-printable':
      // Soft line breaks vanish; =XX is a byte; anything else (a stray `=`) is kept (RFC 2045 §6.7).
      return new Uint8Array(
        Buffer.from(
          body
            // Trailing blanks of each line go (RFC 2045 §6.7 rule 3). The lookbehind makes a
            // match start at the first blank of a run only: without it a long run with no line
            // break after it is retried from every position (quadratic, 37 s for 200,000 spaces).
            .replace(/(?<![ \t])[ \t]+(?=\r?\n)/g, '')
            .replace(/=\r?\n/g, '')
            .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
          'latin1',
        ),
      );
    default:
      return new Uint8Array(Buffer.from(body, 'latin1'));
  }
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const stripAngles = (id: string): string => id.trim().replace(/^<|>$/g, '');

/** The root: the part named by `start`, else the one at the message's location, else the first HTML part. */
function findRoot(parts: Part[], start: string | null, location: string | null): Part | undefined {
  if (start) {
    const byId = parts.find(
      (part) => stripAngles(part.headers.get('content-id') ?? '') === stripAngles(start),
    );
    if (byId) return byId;
  }
  const html = parts.filter((part) => HTML_TYPES.has(mediaType(part)));
  if (location) {
    const byLocation = html.find((part) => part.headers.get('content-location') === location);
    if (byLocation) return byLocation;
  }
  return html[0];
}

/**
 * The root HTML of an MHTML file.
 * @throws ImportRefused UNREADABLE when it is not multipart/related, has no boundary or no HTML root.
 */
export function readMhtml(bytes: Uint8Array): MhtmlRoot {
  const source = Buffer.from(bytes).toString('latin1');
  const { headers, rest } = readHeaders(source.replace(/^\xEF\xBB\xBF/, ''));
  const contentType = headers.get('content-type') ?? '';
  if (!/^multipart\/related\b/i.test(contentType)) throw unreadable('it is not multipart/related');
  const boundary = headerParam(contentType, 'boundary');
  if (!boundary) throw unreadable('it names no boundary');
  const parts = splitParts(rest, boundary);
  const location = headers.get('snapshot-content-location') ?? headers.get('content-location') ?? null;
  const root = findRoot(parts, headerParam(contentType, 'start'), location);
  if (!root) throw unreadable('it has no HTML part');
  const rootType = root.headers.get('content-type') ?? '';
  return {
    html: decodeTransfer(root.body, root.headers.get('content-transfer-encoding') ?? '7bit'),
    charset: headerParam(rootType, 'charset')?.toLowerCase() ?? null,
    location: location ?? root.headers.get('content-location') ?? null,
    partCount: parts.length,
  };
}
