/**
 * PDF → text, page by page, with pdf.js. Every feature that could reach outside the job (eval,
 * font loading, network, range requests) is off; only the bundled CMaps and standard fonts are
 * read, from node_modules.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { getDocument, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { cleanTitle, stripInvisible } from './html/invisible.ts';
import { IMPORT_LIMITS } from './import/limits.ts';
import { detectInstructions } from './instructions/instructions.ts';
import { tidyLines } from './lines.ts';
import { type ParsedDocument, ParseRefusal } from './types.ts';

/** How a PDF is read: `ocrEmptyPages` OCRs the pages whose text layer is empty (imports with ocr). */
export interface PdfOptions {
  ocrEmptyPages?: boolean;
}

/** A parsed PDF, with the pages that had no text layer and were not OCR'd. */
export type ParsedPdf = ParsedDocument & { pagesWithoutText: number[] };

const PDFJS_ROOT = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const MAX_TITLE_CHARS = 500;

async function openPdf(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  try {
    return await getDocument({
      // pdf.js may detach the buffer it is given; hand it a copy so the caller's bytes survive.
      data: new Uint8Array(bytes),
      isEvalSupported: false,
      useSystemFonts: false,
      disableFontFace: true,
      disableAutoFetch: true,
      disableStream: true,
      disableRange: true,
      enableXfa: false,
      isOffscreenCanvasSupported: false,
      // Only rendering (OCR of imported pages) decodes images: larger ones are skipped, not drawn.
      maxImageSize: IMPORT_LIMITS.embeddedImagePixels,
      cMapUrl: `${path.join(PDFJS_ROOT, 'cmaps')}/`,
      cMapPacked: true,
      standardFontDataUrl: `${path.join(PDFJS_ROOT, 'standard_fonts')}/`,
      verbosity: 0,
    }).promise;
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    const encrypted = name === 'PasswordException';
    throw new ParseRefusal(
      'UNREADABLE_CONTENT',
      encrypted ? 'The PDF is encrypted.' : 'The PDF could not be read.',
      { format: 'pdf', encrypted },
    );
  }
}

/**
 * The raw text of one page: pdf.js items in reading order, a newline wherever pdf.js saw a line
 * end; with `ocrIfEmpty`, a page with no text layer is rendered and OCR'd instead.
 */
async function readPageText(
  document: PDFDocumentProxy,
  pageNumber: number,
  ocrIfEmpty: boolean,
): Promise<{ text: string; ocr: boolean }> {
  const page = await document.getPage(pageNumber);
  const { width, height } = page.getViewport({ scale: 1 });
  const pixels = Math.round(width * height);
  if (pixels > IMPORT_LIMITS.pagePixels) {
    throw new ParseRefusal('TOO_MANY_PIXELS', `Page ${pageNumber} is larger than Cairn reads.`, {
      page: pageNumber,
      pixels,
      limit: IMPORT_LIMITS.pagePixels,
    });
  }
  const content = await page.getTextContent();
  let text = '';
  for (const item of content.items) {
    if (!('str' in item)) continue;
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  if (ocrIfEmpty && !text.trim()) {
    // Loaded only here: rendering needs pdf.js's canvas and tesseract, which plain reads never do.
    const { ocrPdfPage } = await import('./pdf-ocr.ts');
    const recognised = await ocrPdfPage(document, page);
    page.cleanup();
    return { text: recognised, ocr: true };
  }
  page.cleanup();
  return { text, ocr: false };
}

/** The Title of the PDF's information dictionary, as written; the caller cleans it. */
async function readTitle(document: PDFDocumentProxy): Promise<string | null> {
  const { info } = await document.getMetadata().catch(() => ({ info: {} }));
  const title = (info as { Title?: unknown }).Title;
  return typeof title === 'string' ? title : null;
}

/**
 * Parses a PDF into `[page N]`-marked text with page offsets.
 * @throws ParseRefusal TOO_MANY_PAGES over IMPORT_LIMITS.pdfPages, TOO_MANY_PIXELS for a
 *   page over IMPORT_LIMITS.pagePixels at 72 dpi, UNREADABLE_CONTENT when encrypted or corrupt.
 */
export async function parsePdf(bytes: Uint8Array, options: PdfOptions = {}): Promise<ParsedPdf> {
  const document = await openPdf(bytes);
  try {
    const limit = IMPORT_LIMITS.pdfPages;
    if (document.numPages > limit) {
      throw new ParseRefusal(
        'TOO_MANY_PAGES',
        `The PDF has ${document.numPages} pages; Cairn reads up to ${limit}.`,
        {
          pages: document.numPages,
          limit,
        },
      );
    }
    const transformations = new Set<string>(['PDF_TEXT_BY_PAGE']);
    const pages: ParsedDocument['pages'] = [];
    const hiddenTexts: string[] = [];
    const pagesWithoutText: number[] = [];
    let text = '';
    for (let number = 1; number <= document.numPages; number++) {
      const read = await readPageText(document, number, options.ocrEmptyPages === true).catch(
        rethrowAsUnreadable,
      );
      if (read.ocr) transformations.add('OCR');
      else if (!read.text.trim()) pagesWithoutText.push(number);
      // Stripped before tidying, so a removed character leaves no doubled space behind.
      const cleaned = stripInvisible(read.text);
      for (const name of cleaned.transformations) transformations.add(name);
      hiddenTexts.push(...cleaned.hiddenTexts);
      if (text) text += '\n\n';
      pages.push({ page: number, offset: text.length });
      text += `[page ${number}]\n${tidyLines(cleaned.text)}`;
    }
    const title = cleanTitle(await readTitle(document), MAX_TITLE_CHARS, transformations, hiddenTexts);
    const instructions = detectInstructions(text, hiddenTexts);
    return {
      kind: 'pdf',
      text,
      title,
      pages,
      transformations: [...transformations],
      flags: instructions.flags,
      instructionSpans: instructions.spans,
      surface: null,
      pagesWithoutText,
    };
  } finally {
    await document.destroy();
  }
}

function rethrowAsUnreadable(error: unknown): never {
  if (error instanceof ParseRefusal) throw error;
  throw new ParseRefusal('UNREADABLE_CONTENT', 'A page of the PDF could not be read.', { format: 'pdf' });
}
