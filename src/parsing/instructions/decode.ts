/**
 * Encoded payloads: base64 and hex runs that decode to readable text, and ROT13 when the text
 * names it. The decoded text is read by the same detector; a run whose decoding is instruction-like
 * becomes one ENCODED_INSTRUCTIONS span over the encoded characters, with the decoding in its note.
 */

import type { InstructionSpan } from '../types.ts';
import { unicodeWords } from './regex.ts';

/** Bounds, so a text full of long tokens costs little: runs decoded per text, characters per run. */
const MAX_RUNS = 20;
const MAX_RUN_CHARS = 8_000;
const MAX_NOTE = 160;

const BASE64_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const HEX_RUN = unicodeWords(/\b(?:[0-9a-fA-F]{2}){12,}\b/g);
const NAMES_ROT13 = unicodeWords(/\brot[-\s]?13\b/i);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text when they are readable prose (UTF-8, no controls, some spaces), else null. */
function readable(bytes: Uint8Array): string | null {
  let decoded: string;
  try {
    decoded = utf8.decode(bytes);
  } catch {
    return null;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters mean binary, not prose.
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFD]/.test(decoded)) return null;
  return (decoded.match(/ /g)?.length ?? 0) >= 2 ? decoded : null;
}

function base64Bytes(run: string): Uint8Array {
  return Buffer.from(run, 'base64');
}

function hexBytes(run: string): Uint8Array {
  return Buffer.from(run, 'hex');
}

export function rot13(text: string): string {
  return text.replace(/[a-z]/gi, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
}

const quoteNote = (encoding: string, decoded: string): string => {
  const flat = decoded.replace(/\s+/g, ' ').trim();
  return `Decoded from ${encoding}: "${flat.length > MAX_NOTE ? `${flat.slice(0, MAX_NOTE)}…` : flat}"`;
};

/**
 * ENCODED_INSTRUCTIONS spans for encoded runs in `text` whose decoding `detect` finds
 * instruction-like. Offsets are the encoded run's in `text`.
 */
export function findEncodedSpans(
  text: string,
  detect: (decoded: string) => InstructionSpan[],
  excerptChars: number,
): InstructionSpan[] {
  const spans: InstructionSpan[] = [];
  let runs = 0;
  for (const [pattern, encoding, toBytes] of [
    [BASE64_RUN, 'base64', base64Bytes],
    [HEX_RUN, 'hex', hexBytes],
  ] as const) {
    for (const match of text.matchAll(pattern)) {
      if (runs++ >= MAX_RUNS) break;
      const run = match[0].slice(0, MAX_RUN_CHARS);
      const decoded = readable(toBytes(run));
      if (decoded === null || detect(decoded).length === 0) continue;
      spans.push({
        offset: match.index,
        length: match[0].length,
        kind: 'ENCODED_INSTRUCTIONS',
        excerpt: match[0].slice(0, excerptChars),
        note: quoteNote(encoding, decoded),
      });
    }
  }
  // ROT13 keeps every letter in place, so a span in the decoded text is a span in this one.
  if (NAMES_ROT13.test(text)) {
    for (const span of detect(rot13(text))) {
      spans.push({
        offset: span.offset,
        length: span.length,
        kind: 'ENCODED_INSTRUCTIONS',
        excerpt: text.slice(span.offset, span.offset + Math.min(span.length, excerptChars)),
        note: quoteNote('ROT13', span.excerpt),
      });
    }
  }
  return spans;
}
