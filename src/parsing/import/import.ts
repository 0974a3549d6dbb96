/**
 * Research imports (SPEC "Research imports" limits): the owner's file, checked against the
 * limits, its format inferred or checked, and read into page-marked text. Limits refuse the
 * whole file, never a cut copy: evidence that silently lost its 41st page or 5,001st line would
 * misquote the original. Runs inside the parser pool (job `import`).
 */
import { findCredential } from '../../kernel/credential-scan.ts';
import { parseMediaType } from '../content-type.ts';
import { parseHtml } from '../html/html.ts';
import { SUPPORTED_VERSIONS, validateSbom } from '../sbom/index.ts';
import { checkHtmlEncoding, parseSnapshot } from '../snapshot.ts';
import { parseTextContent } from '../text.ts';
import { type ParsedDocument, ParseRefusal } from '../types.ts';
import { resolveImportFormat } from './infer.ts';
import { IMPORT_LIMITS } from './limits.ts';
import { countLines, decodeImportText } from './text.ts';
import {
  type ImportedDocument,
  type ImportFormat,
  type ImportInput,
  type ImportOutcome,
  type ImportRefusalCode,
  ImportRefused,
} from './types.ts';

const L = IMPORT_LIMITS;

/** A ParsedDocument as an import result. */
function imported(
  format: ImportFormat,
  parsed: ParsedDocument,
  extra: Partial<ImportedDocument> = {},
): ImportedDocument {
  return {
    format,
    text: parsed.text,
    pages: parsed.pages,
    pageCount: Math.max(1, parsed.pages.length),
    title: parsed.title,
    transformations: parsed.transformations,
    flags: parsed.flags,
    instructionSpans: parsed.instructionSpans,
    ...extra,
  };
}

/** The existing parsers' refusals in import terms (their messages are already one sentence). */
function fromParseRefusal(error: ParseRefusal, format: ImportFormat): ImportRefused {
  const image = format === 'png' || format === 'jpeg';
  const [code, next]: [ImportRefusalCode, string] =
    error.reason === 'TOO_MANY_PAGES'
      ? ['TOO_MANY_PAGES', `Split the PDF into parts of at most ${L.pdfPages} pages and import each.`]
      : error.reason === 'TOO_MANY_PIXELS'
        ? image
          ? ['IMAGE_TOO_LARGE', `Scale the image down to at most ${L.embeddedImagePixels} pixels.`]
          : ['PAGE_TOO_LARGE', `Export the PDF with pages of at most ${L.pagePixels} pixels at 72 dpi.`]
        : ['UNREADABLE', 'Check that the file opens, is not encrypted, and is the format it says.'];
  return new ImportRefused(code, error.message, next, { ...error.details, format });
}

async function readPdf(bytes: Uint8Array, ocr: boolean): Promise<ImportedDocument> {
  // Loaded on first use, as in dispatch.ts: pdf.js is large and most imports are not PDFs.
  const { parsePdf } = await import('../pdf.ts');
  const { pagesWithoutText, ...parsed } = await parsePdf(bytes, { ocrEmptyPages: ocr });
  return imported('pdf', parsed, pagesWithoutText.length ? { pagesWithoutText } : {});
}

function readLog(bytes: Uint8Array, charset: string | null): ImportedDocument {
  const text = decodeImportText(bytes, charset);
  const lineCount = countLines(text);
  if (lineCount > L.logLines) {
    throw new ImportRefused(
      'TOO_MANY_LINES',
      `The log has ${lineCount} lines; Cairn imports logs of up to ${L.logLines} lines.`,
      `Split the log into parts of at most ${L.logLines} lines, or import only the lines that matter.`,
      { lines: lineCount, limit: L.logLines },
    );
  }
  return imported('log', parseTextContent(text), { lineCount });
}

async function readFormat(format: ImportFormat, input: ImportInput, charset: string | null) {
  switch (format) {
    case 'pdf':
      return readPdf(input.bytes, input.ocr === true);
    case 'png':
    case 'jpeg': {
      // A PNG or JPEG has no text layer, so OCR is the only reading whatever `ocr` says.
      const { parseImage } = await import('../image.ts');
      return imported(format, await parseImage(input.bytes, format));
    }
    case 'html':
      return imported('html', parseHtml(input.bytes, checkHtmlEncoding(input.bytes, charset)));
    case 'snapshot':
      return parseSnapshot(input.bytes, charset);
    case 'log':
      return readLog(input.bytes, charset);
    case 'text':
      return imported(format, parseTextContent(decodeImportText(input.bytes, charset)));
    case 'cyclonedx':
    case 'spdx':
      return readSbom(format, input.bytes);
  }
}

/**
 * An SBOM, validated against its official schema; its components (name, version, purl,
 * licences, hashes) become the evidence text, one line each, so they can be quoted and searched.
 */
function readSbom(format: 'cyclonedx' | 'spdx', bytes: Uint8Array): ImportedDocument {
  const result = validateSbom(bytes, format);
  if (!result.ok) {
    const version = result.specVersion ? ` ${result.specVersion}` : '';
    throw new ImportRefused(
      'SBOM_INVALID',
      `The ${format}${version} document does not validate against its official schema: ${result.errors
        .slice(0, 3)
        .map((e) => `${e.path || '/'} ${e.message}`)
        .join('; ')}.`,
      `Fix the listed paths (errors[].path is a JSON pointer into the document) and import it again; Cairn accepts CycloneDX JSON ${SUPPORTED_VERSIONS.cyclonedx.join(', ')} and SPDX JSON ${SUPPORTED_VERSIONS.spdx.join(', ')}.`,
      { errors: result.errors, spec_version: result.specVersion, sbom_format: result.format },
    );
  }
  const parsed = parseTextContent(result.text);
  return imported(format, parsed, {
    title: result.name,
    sbom: { specVersion: result.specVersion, components: result.components.length },
  });
}

/**
 * Reads an import into text.
 * @throws ImportRefused with the code and next move (see ImportRefusalCode).
 */
export async function parseImport(input: ImportInput): Promise<ImportedDocument> {
  if (input.bytes.length > L.fileBytes) {
    throw new ImportRefused(
      'IMPORT_TOO_LARGE',
      `The file is ${input.bytes.length} bytes; Cairn imports files of up to ${L.fileBytes} bytes (12 MiB).`,
      'Import a smaller file, or split it into parts of at most 12 MiB.',
      { bytes: input.bytes.length, limit: L.fileBytes },
    );
  }
  const format = resolveImportFormat(input.bytes, input.contentType, input.format);
  const { charset } = parseMediaType(input.contentType);
  try {
    return await readFormat(format, input, charset);
  } catch (error) {
    if (error instanceof ParseRefusal) throw fromParseRefusal(error, format);
    throw error;
  }
}

/** parseImport as a value: refusals come back as `{ok: false}`; anything else still throws. */
export async function runImport(input: ImportInput): Promise<ImportOutcome> {
  try {
    const document = await parseImport(input);
    // Scanned here, beside the parse: a text of megabytes would hold the event loop (issue 40).
    return { ok: true, document: { ...document, credential: findCredential(document.text)?.kind ?? null } };
  } catch (error) {
    if (error instanceof ImportRefused) return { ok: false, refusal: error.refusal };
    throw error;
  }
}
