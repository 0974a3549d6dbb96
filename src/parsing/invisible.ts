/**
 * Characters that change what a reader sees without being seen themselves. They are removed from
 * every final text so quotes match what a human reads and hidden payloads cannot ride along.
 */

/** Zero-width space/joiners, word joiner, BOM used as ZWNBSP, soft hyphen. */
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF\u00AD]/g;
/** Bidirectional embeddings/overrides, isolates and marks. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F]/g;

/** The text without invisible characters, and the transformation names for what was removed. */
export function stripInvisible(text: string): { text: string; transformations: string[] } {
  const transformations: string[] = [];
  const withoutZeroWidth = text.replace(ZERO_WIDTH, '');
  if (withoutZeroWidth.length !== text.length) transformations.push('ZERO_WIDTH_REMOVED');
  const result = withoutZeroWidth.replace(BIDI_CONTROLS, '');
  if (result.length !== withoutZeroWidth.length) transformations.push('BIDI_CONTROLS_REMOVED');
  return { text: result, transformations };
}
