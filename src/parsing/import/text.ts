/**
 * The text side of imports: strict decoding (an import is evidence, so bytes that are not the
 * text they claim to be are refused rather than silently turned into U+FFFD), line counting and
 * telling a log from other text.
 */
import { decodeText } from '../content-type.ts';
import { ImportRefused } from './types.ts';

const UTF8_LABELS = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8']);

/**
 * Decodes a text import. With no declared charset (or a UTF-8 one) the bytes must be valid UTF-8
 * (a BOM is allowed and dropped); a declared other charset is honoured as the reading path does.
 * @throws ImportRefused INVALID_UTF8 naming the byte offset of the first bad sequence.
 */
export function decodeImportText(bytes: Uint8Array, charset: string | null): string {
  if (charset && !UTF8_LABELS.has(charset)) return decodeText(bytes, charset);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    throw new ImportRefused(
      'INVALID_UTF8',
      `The file is not valid UTF-8 (first bad byte at offset ${offset}).`,
      'Convert the file to UTF-8, or send it with a Content-Type that names its charset.',
      { offset },
    );
  }
}

/** Offset of the first byte that does not begin a well-formed UTF-8 sequence (for the details). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  while (offset < bytes.length) {
    const lead = bytes[offset] ?? 0;
    const size = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    try {
      // One sequence at a time: the decoder checks overlongs, surrogates and continuation bytes.
      decoder.decode(bytes.subarray(offset, offset + size));
    } catch {
      return offset;
    }
    offset += size;
  }
  return offset;
}

/** Lines in a text: `\n`, `\r\n` and `\r` end a line; a final line ending does not start another. */
export function countLines(text: string): number {
  if (text === '') return 0;
  const breaks = text.match(/\r\n|\r|\n/g)?.length ?? 0;
  return /[\r\n]$/.test(text) ? breaks : breaks + 1;
}

const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const LEVEL = '(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|CRIT|CRITICAL|FATAL|ALERT|EMERG|SEVERE)';

/** How log lines start: a timestamp in a common shape, a syslog priority, or a level prefix. */
const LOG_LINE_STARTS: RegExp[] = [
  /^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/, // ISO 8601 / RFC 3339
  /^\[?\d{4}\/\d{2}\/\d{2}[ T]\d{2}:\d{2}/, // nginx error log
  /^\[?\d{2}\/\d{2}\/\d{4}[ T]\d{2}:\d{2}/,
  new RegExp(`^(?:<\\d{1,3}>)?${MONTH} [ \\d]\\d \\d{2}:\\d{2}:\\d{2}`), // BSD syslog (RFC 3164)
  /^<\d{1,3}>\d /, // RFC 5424 syslog
  /^\[?\d{10}(?:\.\d+)?[\]\s]/, // Unix epoch seconds
  /^\[?\d{2}:\d{2}:\d{2}[.,\]\s]/,
  /^\S+ \S+ \S+ \[\d{2}\/\w{3}\/\d{4}:\d{2}:\d{2}:\d{2}/, // Common Log Format
  new RegExp(`^${LEVEL}[:\\s]`),
  new RegExp(`^\\[${LEVEL}\\]`, 'i'),
  /^\{"(?:ts|time|timestamp|@timestamp|level|severity)"\s*:/, // JSON lines loggers
];

/** Lines sampled from the start: enough to judge, cheap on a 12 MiB file. */
const SAMPLE_LINES = 200;

/**
 * True when most non-empty lines of the first 200 start like log lines. Continuation lines
 * (stack traces, wrapped messages) are why it is "most", not "all".
 */
export function looksLikeLog(text: string): boolean {
  const lines: string[] = [];
  let start = 0;
  while (lines.length < SAMPLE_LINES && start < text.length) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end === -1 ? text.length : end).replace(/^\uFEFF/, '');
    if (line.trim()) lines.push(line);
    if (end === -1) break;
    start = end + 1;
  }
  if (lines.length === 0) return false;
  const matching = lines.filter((line) => LOG_LINE_STARTS.some((pattern) => pattern.test(line))).length;
  return matching * 2 > lines.length;
}
