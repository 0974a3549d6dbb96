/**
 * PNG/JPEG → text by OCR. sharp decodes under a pixel limit and normalises the image for
 * tesseract (flattened, greyscale, small images enlarged) within the OCR render budget.
 */
import sharp, { type Metadata } from 'sharp';
import { stripInvisible } from './html/invisible.ts';
import { IMPORT_LIMITS } from './import/limits.ts';
import { detectInstructions } from './instructions/instructions.ts';
import { tidyLines } from './lines.ts';
import { recogniseText } from './ocr.ts';
import { type ParsedDocument, ParseRefusal } from './types.ts';

// One libvips thread and no operation cache: the pool bounds parallelism, and cached decoded
// images would outlive the job that decoded them.
sharp.cache(false);
sharp.concurrency(1);

/** Images whose longer side is below this are enlarged: tesseract misreads small glyphs. */
const UPSCALE_BELOW_PX = 1_000;
const MAX_UPSCALE = 2;

async function readSize(
  bytes: Uint8Array,
  format: 'png' | 'jpeg',
): Promise<{ width: number; height: number }> {
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new ParseRefusal('UNREADABLE_CONTENT', 'The image could not be decoded.', { format });
  }
  if (metadata.format !== format || !metadata.width || !metadata.height) {
    throw new ParseRefusal('UNREADABLE_CONTENT', 'The image could not be decoded.', { format });
  }
  return { width: metadata.width, height: metadata.height };
}

/** The image as a greyscale PNG sized for OCR, never over IMPORT_LIMITS.ocrRenderPixels. */
async function normalise(bytes: Uint8Array, width: number, height: number, format: string): Promise<Buffer> {
  const pixels = width * height;
  const budget = IMPORT_LIMITS.ocrRenderPixels;
  let scale = Math.max(width, height) < UPSCALE_BELOW_PX ? MAX_UPSCALE : 1;
  scale = Math.min(scale, Math.sqrt(budget / pixels));
  try {
    return await sharp(bytes, {
      limitInputPixels: IMPORT_LIMITS.embeddedImagePixels,
      failOn: 'error',
    })
      .flatten({ background: '#ffffff' })
      .greyscale()
      .resize(Math.max(1, Math.floor(width * scale)), Math.max(1, Math.floor(height * scale)), {
        fit: 'fill',
        kernel: 'lanczos3',
      })
      .png({ compressionLevel: 1 })
      .toBuffer();
  } catch {
    throw new ParseRefusal('UNREADABLE_CONTENT', 'The image could not be decoded.', { format });
  }
}

/**
 * OCRs a PNG or JPEG (the caller has checked the magic bytes) into text starting with `[page 1]`.
 * @throws ParseRefusal TOO_MANY_PIXELS over IMPORT_LIMITS.embeddedImagePixels,
 *   UNREADABLE_CONTENT when the image does not decode.
 */
export async function parseImage(bytes: Uint8Array, format: 'png' | 'jpeg'): Promise<ParsedDocument> {
  const { width, height } = await readSize(bytes, format);
  const limit = IMPORT_LIMITS.embeddedImagePixels;
  if (width * height > limit) {
    throw new ParseRefusal(
      'TOO_MANY_PIXELS',
      `The image has ${width * height} pixels; Cairn reads up to ${limit}.`,
      {
        width,
        height,
        pixels: width * height,
        limit,
      },
    );
  }
  const image = await normalise(bytes, width, height, format);
  const cleaned = stripInvisible(await recogniseText(image));
  const text = `[page 1]\n${tidyLines(cleaned.text)}`;
  const instructions = detectInstructions(text, cleaned.hiddenTexts);
  return {
    kind: 'image',
    text,
    title: null,
    pages: [{ page: 1, offset: 0 }],
    transformations: ['OCR', ...cleaned.transformations],
    flags: instructions.flags,
    instructionSpans: instructions.spans,
    surface: null,
  };
}
