/** Plain text (text/plain, text/markdown, text/csv, …) and JSON bodies. */
import { decodeText } from './content-type.ts';
import { stripInvisible } from './html/invisible.ts';
import { detectInstructions } from './instructions/instructions.ts';
import { type ParsedDocument, ParseRefusal } from './types.ts';

/** Normalises line endings so offsets are the same whichever platform wrote the file. */
const normaliseNewlines = (text: string): string => text.replace(/\r\n?/g, '\n');

function finishText(kind: 'text' | 'json', raw: string, transformations: string[] = []): ParsedDocument {
  const cleaned = stripInvisible(raw);
  const instructions = detectInstructions(cleaned.text, cleaned.hiddenTexts);
  return {
    kind,
    text: cleaned.text,
    title: null,
    pages: [],
    transformations: [...transformations, ...cleaned.transformations],
    flags: instructions.flags,
    instructionSpans: instructions.spans,
    surface: null,
  };
}

/** Decodes a text body with its declared charset (BOM first, else UTF-8); the text is kept as written. */
export function parsePlainText(bytes: Uint8Array, charset: string | null): ParsedDocument {
  return finishText('text', normaliseNewlines(decodeText(bytes, charset)));
}

/** Text already decoded (an import checked strictly as UTF-8): line endings normalised, then as above. */
export function parseTextContent(raw: string): ParsedDocument {
  return finishText('text', normaliseNewlines(raw));
}

/**
 * Parses a JSON body. JSON is UTF-8 by definition (RFC 8259), so a declared charset only matters
 * when it names another encoding.
 * @throws ParseRefusal UNREADABLE_CONTENT when the body is not valid JSON.
 */
export function readJsonValue(bytes: Uint8Array, charset: string | null): unknown {
  const source = decodeText(bytes, charset);
  try {
    return JSON.parse(source.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ParseRefusal('UNREADABLE_CONTENT', 'The body is not valid JSON.', {
      reason: error instanceof Error ? error.message.slice(0, 200) : 'invalid JSON',
    });
  }
}

/** A JSON body as pretty-printed text (two-space indent), kind 'json'. */
export function parseJson(bytes: Uint8Array, charset: string | null): ParsedDocument {
  const value = readJsonValue(bytes, charset);
  return finishText('json', JSON.stringify(value, null, 2) ?? 'null', ['JSON_PRETTY_PRINTED']);
}
