import { z } from 'zod';
import { BASE64_MESSAGE, BASE64_PATTERN } from './base64.ts';

export { BASE64_MESSAGE, BASE64_PATTERN } from './base64.ts';

/**
 * Payload fields: the file a JSON body carries as base64 (`data_base64`) or as text (`text`).
 * A small body is parsed on the main thread and such a field is the string the JSON held. A
 * large one is decoded off the main thread (parsing/json-body.ts, issue 40): its worker checks
 * the field and hands over the bytes, so the event loop never walks millions of characters. A
 * field's schema accepts both forms and states one wire form (a string) in JSON Schema.
 */

/** Characters of the base64 form of `bytes` bytes. */
export const base64Chars = (bytes: number): number => Math.ceil(bytes / 3) * 4;

/** A payload field's value: the JSON's string, or the bytes a large body's worker made of it. */
export type Payload = string | Uint8Array;

export type { PayloadFields } from './base64.ts';

/** A base64 field of at most `maxBytes` decoded bytes (with `nonEmpty`, at least one byte). */
export function base64Field(maxBytes: number, opts: { nonEmpty?: boolean } = {}) {
  const maxChars = base64Chars(maxBytes);
  const minChars = opts.nonEmpty ? 4 : 0;
  return z
    .custom<Payload>(
      (v) =>
        v instanceof Uint8Array
          ? v.length <= maxBytes && (!opts.nonEmpty || v.length > 0)
          : typeof v === 'string' && v.length >= minChars && v.length <= maxChars && BASE64_PATTERN.test(v),
      {
        error: (issue) =>
          typeof issue.input === 'string' && !BASE64_PATTERN.test(issue.input)
            ? BASE64_MESSAGE
            : `a file of at most ${maxBytes} bytes (${maxChars} base64 characters)${opts.nonEmpty ? ', not empty' : ''}`,
      },
    )
    .meta({
      type: 'string',
      contentEncoding: 'base64',
      maxLength: maxChars,
      ...(minChars > 0 ? { minLength: minChars } : {}),
      pattern: BASE64_PATTERN.source,
    });
}

/**
 * A text field of at most `maxChars` characters (UTF-16 code units, as JSON Schema counts them).
 * Its bytes form is the UTF-8 of such a text: at most three bytes per code unit.
 */
export function textField(maxChars: number) {
  return z
    .custom<Payload>(
      (v) =>
        v instanceof Uint8Array ? v.length <= maxChars * 3 : typeof v === 'string' && v.length <= maxChars,
      { message: `a string of at most ${maxChars} characters` },
    )
    .meta({ type: 'string', maxLength: maxChars });
}

/** The bytes of a payload field: a string decoded by its encoding, bytes as they are (no copy). */
export function payloadBytes(value: Payload, encoding: 'base64' | 'utf8'): Buffer {
  if (typeof value === 'string') return Buffer.from(value, encoding);
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}
