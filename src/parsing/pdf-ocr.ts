/**
 * OCR of a PDF page that has no text layer (a scan), for imports with `ocr: true`. pdf.js draws
 * the page on its own Node canvas (@napi-rs/canvas, which pdf.js loads itself) at a resolution
 * tesseract reads well, never over IMPORT_LIMITS.ocrRenderPixels.
 */
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { IMPORT_LIMITS } from './import/limits.ts';
import { recogniseText } from './ocr.ts';

/** About 216 dpi (PDF units are 1/72 inch): sharp enough for body text, cheap enough for 40 pages. */
const TARGET_SCALE = 3;

interface NodeCanvas {
  toBuffer(mime: 'image/png'): Buffer;
}
interface CanvasFactory {
  create(width: number, height: number): { canvas: NodeCanvas; context: CanvasRenderingContext2D };
  destroy(entry: { canvas: NodeCanvas; context: CanvasRenderingContext2D }): void;
}

/** The render scale for a page of this size at scale 1: the target, lowered to fit the pixel budget. */
export function ocrScale(width: number, height: number): number {
  return Math.min(TARGET_SCALE, Math.sqrt(IMPORT_LIMITS.ocrRenderPixels / (width * height)));
}

/** Renders one page on white and returns the text tesseract reads from it. */
export async function ocrPdfPage(document: PDFDocumentProxy, page: PDFPageProxy): Promise<string> {
  const base = page.getViewport({ scale: 1 });
  const viewport = page.getViewport({ scale: ocrScale(base.width, base.height) });
  const factory = (document as unknown as { canvasFactory: CanvasFactory }).canvasFactory;
  const entry = factory.create(Math.floor(viewport.width), Math.floor(viewport.height));
  try {
    await page.render({
      canvasContext: entry.context,
      canvas: entry.canvas as unknown as HTMLCanvasElement,
      viewport,
      background: '#ffffff',
    }).promise;
    return await recogniseText(entry.canvas.toBuffer('image/png'));
  } finally {
    factory.destroy(entry);
  }
}
