/**
 * Characters that change what a reader sees without being seen themselves. They are removed from
 * every final text (and title) so quotes match what a human reads, hidden payloads cannot ride
 * along, and the text can be stored (PostgreSQL text cannot hold NUL).
 */

/** Zero-width space/joiners, word joiner, BOM used as ZWNBSP, soft hyphen. */
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF\u00AD]/g;
/** Bidirectional embeddings/overrides, isolates and marks (including the Arabic letter mark). */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
/** C0 controls except tab, line feed and carriage return; DEL; C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
/** Unicode tag characters (U+E0000–U+E007F): invisible, yet they can spell ASCII text. */
const TAG_CHARACTERS = /[\u{E0000}-\u{E007F}]+/gu;

/** Offset of the tag block: tag character U+E0020…U+E007E stands for ASCII 0x20…0x7E. */
const TAG_BASE = 0xe0000;

/**
 * One character class matching every single character `stripInvisible` removes, for code that
 * must ignore the same characters (quote matching).
 */
export const INVISIBLE_CHARACTER =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u200B-\u200D\u2060\uFEFF\u00AD\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u{E0000}-\u{E007F}]/u;

/** The ASCII text a run of tag characters spells; tags outside U+E0020–U+E007E spell nothing. */
export function decodeTagCharacters(run: string): string {
  let decoded = '';
  for (const character of run) {
    const ascii = (character.codePointAt(0) ?? 0) - TAG_BASE;
    if (ascii >= 0x20 && ascii <= 0x7e) decoded += String.fromCharCode(ascii);
  }
  return decoded;
}

export interface StrippedText {
  text: string;
  /** ZERO_WIDTH_REMOVED, BIDI_CONTROLS_REMOVED, CONTROL_CHARACTERS_REMOVED, TAG_CHARACTERS_REMOVED — only those that happened, in this order. */
  transformations: string[];
  /**
   * The ASCII spelled by each run of removed tag characters (non-empty runs only), for the
   * instruction detector to read as hidden text.
   */
  hiddenTexts: string[];
}

/** The text without invisible and control characters, what was removed, and what tag characters spelled. */
export function stripInvisible(text: string): StrippedText {
  const transformations: string[] = [];
  const hiddenTexts: string[] = [];
  let result = text;
  const remove = (pattern: RegExp, name: string): void => {
    const next = result.replace(pattern, '');
    if (next.length !== result.length) transformations.push(name);
    result = next;
  };
  remove(ZERO_WIDTH, 'ZERO_WIDTH_REMOVED');
  remove(BIDI_CONTROLS, 'BIDI_CONTROLS_REMOVED');
  remove(CONTROL_CHARACTERS, 'CONTROL_CHARACTERS_REMOVED');
  // Last, so tag characters split by other invisible characters decode as one run.
  const withoutTags = result.replace(TAG_CHARACTERS, (run) => {
    const decoded = decodeTagCharacters(run).trim();
    if (decoded) hiddenTexts.push(decoded);
    return '';
  });
  if (withoutTags.length !== result.length) transformations.push('TAG_CHARACTERS_REMOVED');
  return { text: withoutTags, transformations, hiddenTexts };
}

/**
 * A title without invisible characters, its whitespace runs collapsed; null when nothing is left.
 * The transformations and hidden texts are added to the given lists.
 */
export function cleanTitle(
  raw: string | null,
  maxChars: number,
  transformations: Set<string> | string[],
  hiddenTexts: string[],
): string | null {
  if (raw === null) return null;
  const cleaned = stripInvisible(raw);
  for (const name of cleaned.transformations) {
    if (Array.isArray(transformations)) {
      if (!transformations.includes(name)) transformations.push(name);
    } else transformations.add(name);
  }
  hiddenTexts.push(...cleaned.hiddenTexts);
  const title = cleaned.text.replace(/\s+/g, ' ').trim();
  return title ? title.slice(0, maxChars) : null;
}
