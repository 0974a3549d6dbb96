/**
 * Base64 payload fields, as the parser threads check them: no zod here, since every module a
 * parser thread loads is loaded again each time a thread is replaced (after a job cut off at its
 * limit), and zod alone took a good part of a second to load on a busy machine.
 */

/** Standard base64 without line breaks: the one alphabet Cairn's base64 fields take. */
export const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/;

/** The wording of a base64 field's format check, wherever it is made (zod, or the body worker). */
export const BASE64_MESSAGE = 'standard base64 without line breaks';

/** How a large body's worker is to read its payload fields: top-level keys by encoding. */
export interface PayloadFields {
  base64?: readonly string[];
  text?: readonly string[];
}
