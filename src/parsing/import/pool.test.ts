/**
 * Research imports as a pool job: the outcome crosses the thread boundary as a value, capacity
 * is refused with ParserBusy like every job, and a timeout becomes an import refusal. Scanned PDF
 * pages are OCR'd here, in a parser thread, where pdf.js loads its canvas.
 */
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPdf } from '../../../test/support/pdf-fixture.ts';
import { inferImportFormat, ParserBusy, ParserPool } from '../index.ts';
import type { ImportOutcome } from './types.ts';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const pool = new ParserPool();
afterAll(() => pool.close());

/** A page-sized greyscale scan of one line of text, with no text layer. */
async function scannedPage(
  text: string,
): Promise<{ image: { width: number; height: number; grey: Uint8Array } }> {
  const [width, height] = [1224, 1584]; // US Letter at 144 dpi
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/><text x="100" y="400" font-family="DejaVu Sans" font-weight="bold" font-size="72" fill="#000">${text}</text></svg>`;
  const { data, info } = await sharp(Buffer.from(svg))
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  expect(info.channels).toBe(1);
  return { image: { width, height, grey: new Uint8Array(data) } };
}

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => null,
    (caught: unknown) => caught,
  );

describe('ParserPool.parseImport', () => {
  it('reads an import in a thread and returns the document as a value', async () => {
    const outcome = await pool.parseImport({ bytes: buildPdf(['First.', 'Second.']), contentType: '' });
    expect(outcome).toMatchObject({ ok: true, document: { format: 'pdf', pageCount: 2 } });
    expect((outcome as Extract<ImportOutcome, { ok: true }>).document.text).toBe(
      '[page 1]\nFirst.\n\n[page 2]\nSecond.',
    );
  });

  it('returns a refusal from the thread as a value with its code, message and next move', async () => {
    const outcome = await pool.parseImport({ bytes: utf8('plain words'), format: 'jpeg', contentType: '' });
    expect(outcome).toEqual({
      ok: false,
      refusal: {
        code: 'FORMAT_MISMATCH',
        message: 'The file was declared jpeg but its bytes are text.',
        next: 'Send the file with the format it really is, or omit format to have it inferred.',
        tooLarge: false,
        details: { declared: 'jpeg', detected: 'text' },
      },
    });
  });

  it('OCRs the scanned pages of a PDF with ocr, and only those', async () => {
    const bytes = buildPdf(['Typed first page.', await scannedPage('SCANNED PAGE 77')]);
    const withOcr = await pool.parseImport({ bytes, contentType: 'application/pdf', ocr: true });
    if (!withOcr.ok) throw new Error(withOcr.refusal.message);
    const { document } = withOcr;
    expect(document.text.startsWith('[page 1]\nTyped first page.\n\n[page 2]\n')).toBe(true);
    expect(document.text.slice(document.pages[1]!.offset).toUpperCase()).toContain('SCANNED PAGE 77');
    expect(document.transformations).toEqual(['PDF_TEXT_BY_PAGE', 'OCR']);
    expect(document).not.toHaveProperty('pagesWithoutText');
    const without = await pool.parseImport({ bytes, contentType: 'application/pdf' });
    expect(without).toMatchObject({
      ok: true,
      document: { pagesWithoutText: [2], text: '[page 1]\nTyped first page.\n\n[page 2]\n' },
    });
  });

  it('refuses an import with ParserBusy at capacity, as every job is (DEGRADED_MODE)', async () => {
    const first = pool.parse({ bytes: utf8('<p>one</p>'), contentType: 'text/html', url: 'https://a.test/' });
    const second = pool.parse({
      bytes: utf8('<p>two</p>'),
      contentType: 'text/html',
      url: 'https://a.test/',
    });
    expect(await failure(pool.parseImport({ bytes: utf8('x'), contentType: '' }))).toBeInstanceOf(ParserBusy);
    await Promise.all([first, second]);
    expect(pool.activeJobs).toBe(0);
  });

  it('returns a job over its time limit as a PARSE_TIMEOUT refusal and frees its slot', async () => {
    // The first OCR in a fresh thread starts tesseract (hundreds of ms): far over 50 ms.
    const slow = new ParserPool({ timeoutMs: 50 });
    try {
      const png = await sharp({ create: { width: 200, height: 60, channels: 3, background: '#fff' } })
        .png()
        .toBuffer();
      const outcome = await slow.parseImport({ bytes: new Uint8Array(png), contentType: 'image/png' });
      expect(outcome).toMatchObject({
        ok: false,
        refusal: { code: 'PARSE_TIMEOUT', tooLarge: false, details: { timeout_ms: 50 } },
      });
      expect(slow.activeJobs).toBe(0);
    } finally {
      await slow.close();
    }
  });

  it('exports inference from the layer index for callers that check before queueing', () => {
    expect(inferImportFormat(utf8('%PDF-1.4\n'), '', 'png')).toMatchObject({
      ok: false,
      refusal: { code: 'FORMAT_MISMATCH' },
    });
  });
});
