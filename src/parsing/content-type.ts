/**
 * Content-Type parsing, charset decoding and magic-byte sniffing. Bytes are untrusted and
 * headers lie, so every decision here looks at both.
 */

/** The media type (lower case, no parameters) and the charset parameter, if any. */
export interface MediaType {
  mime: string;
  charset: string | null;
}

/** What the first bytes of a body say it is, regardless of its Content-Type. */
export type SniffedKind =
  | 'pdf'
  | 'png'
  | 'jpeg'
  | 'html'
  | 'gif'
  | 'webp'
  | 'zip'
  | 'gzip'
  | 'font'
  | 'video'
  | 'audio'
  | 'executable'
  | null;

/** Splits a Content-Type header into media type and charset; '' stays ''. */
export function parseMediaType(header: string): MediaType {
  const [type = '', ...params] = header.split(';');
  let charset: string | null = null;
  for (const param of params) {
    const match = /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(param);
    if (match?.[1]) charset = match[1].toLowerCase();
  }
  return { mime: type.trim().toLowerCase(), charset };
}

const startsWith = (bytes: Uint8Array, signature: number[], at = 0): boolean =>
  bytes.length >= at + signature.length && signature.every((value, i) => bytes[at + i] === value);

const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

/** Binary signatures we recognise; only pdf, png and jpeg are parsed, the rest are named in refusals. */
const SIGNATURES: Array<{ kind: Exclude<SniffedKind, 'html' | null>; bytes: number[]; at?: number }> = [
  { kind: 'png', bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { kind: 'jpeg', bytes: [0xff, 0xd8, 0xff] },
  { kind: 'gif', bytes: ascii('GIF8') },
  { kind: 'webp', bytes: ascii('WEBP'), at: 8 },
  { kind: 'zip', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { kind: 'gzip', bytes: [0x1f, 0x8b] },
  { kind: 'font', bytes: ascii('wOFF') },
  { kind: 'font', bytes: ascii('wOF2') },
  { kind: 'font', bytes: ascii('OTTO') },
  { kind: 'font', bytes: [0x00, 0x01, 0x00, 0x00, 0x00] },
  { kind: 'video', bytes: ascii('ftyp'), at: 4 },
  { kind: 'video', bytes: [0x1a, 0x45, 0xdf, 0xa3] },
  { kind: 'audio', bytes: ascii('ID3') },
  { kind: 'audio', bytes: ascii('OggS') },
  { kind: 'executable', bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { kind: 'executable', bytes: ascii('MZ') },
  { kind: 'executable', bytes: [0x00, 0x61, 0x73, 0x6d] },
];

/**
 * Looks at the first bytes only: a PDF header at the start (after whitespace), fixed binary
 * signatures, else an HTML start. A PDF header further in is left to a declared application/pdf,
 * so a text file that merely mentions `%PDF-` stays text.
 */
export function sniffBytes(bytes: Uint8Array): SniffedKind {
  const head = bytes.subarray(0, 1024);
  if (/^\s*%PDF-/.test(Buffer.from(head.subarray(0, 64)).toString('latin1'))) return 'pdf';
  for (const signature of SIGNATURES) {
    if (startsWith(bytes, signature.bytes, signature.at)) return signature.kind;
  }
  const text = Buffer.from(head)
    .toString('latin1')
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '');
  if (/^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html|head|body)[\s>]/i.test(text)) return 'html';
  return null;
}

/** True when the start of the body looks like text: no NUL bytes and few other control bytes. */
export function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 4096);
  let control = 0;
  for (const byte of head) {
    if (byte === 0) return false;
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) control++;
  }
  return control <= head.length / 100;
}

/** A TextDecoder for the label, or null when the label is not one the platform knows. */
function decoderFor(label: string): TextDecoder | null {
  try {
    return new TextDecoder(label);
  } catch {
    return null;
  }
}

/** The charset a byte-order mark announces, which wins over any header (WHATWG encoding sniffing). */
function charsetFromBom(bytes: Uint8Array): string | null {
  if (startsWith(bytes, [0xef, 0xbb, 0xbf])) return 'utf-8';
  if (startsWith(bytes, [0xfe, 0xff])) return 'utf-16be';
  if (startsWith(bytes, [0xff, 0xfe])) return 'utf-16le';
  return null;
}

/** The charset from `<meta charset>` or `<meta http-equiv content="…; charset=…">` in the first KiB. */
export function charsetFromMeta(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  const match = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  return match?.[1]?.toLowerCase() ?? null;
}

/**
 * windows-1252's printable characters at 0x80–0x9F. Node 20's TextDecoder decodes this encoding
 * (which WHATWG also uses for every "latin1"/"iso-8859-1"/"ascii" label) as ISO-8859-1, leaving
 * C1 controls where pages mean € “ ” – and so on; the mapping is restored here.
 */
const WINDOWS_1252_HIGH: Record<number, string> = {
  128: '\u20AC',
  130: '\u201A',
  131: '\u0192',
  132: '\u201E',
  133: '\u2026',
  134: '\u2020',
  135: '\u2021',
  136: '\u02C6',
  137: '\u2030',
  138: '\u0160',
  139: '\u2039',
  140: '\u0152',
  142: '\u017D',
  145: '\u2018',
  146: '\u2019',
  147: '\u201C',
  148: '\u201D',
  149: '\u2022',
  150: '\u2013',
  151: '\u2014',
  152: '\u02DC',
  153: '\u2122',
  154: '\u0161',
  155: '\u203A',
  156: '\u0153',
  158: '\u017E',
  159: '\u0178',
};

function decodeWith(decoder: TextDecoder, bytes: Uint8Array): string {
  const text = decoder.decode(bytes);
  if (decoder.encoding !== 'windows-1252') return text;
  return text.replace(/[\u0080-\u009F]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0)] ?? c);
}

/**
 * Decodes bytes to a string: BOM first, then the declared charset (header, then `<meta>` when
 * `sniffMeta`), else UTF-8. Unknown labels fall back to UTF-8; malformed bytes become U+FFFD.
 */
export function decodeText(bytes: Uint8Array, declared: string | null, sniffMeta = false): string {
  const labels = [charsetFromBom(bytes), declared, sniffMeta ? charsetFromMeta(bytes) : null];
  for (const label of labels) {
    const decoder = label ? decoderFor(label) : null;
    if (decoder) return decodeWith(decoder, bytes);
  }
  return new TextDecoder('utf-8').decode(bytes);
}
