/**
 * One tesseract.js worker per parser thread, created on first use and reused: starting one
 * loads the WASM core and the language data (~0.3 s), which OCR jobs should not pay each time.
 * Language data comes only from the bundled @tesseract.js-data/eng; nothing is downloaded.
 */
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { createWorker, type Worker } from 'tesseract.js';

let worker: Promise<Worker> | null = null;

function languageDataPath(): string {
  const packageJson = createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json');
  return path.join(path.dirname(packageJson), '4.0.0');
}

function startWorker(): Promise<Worker> {
  return createWorker('eng', 1, {
    langPath: languageDataPath(),
    gzip: true,
    cacheMethod: 'none',
    cachePath: mkdtempSync(path.join(os.tmpdir(), 'cairn-ocr-')),
  });
}

/** Recognises the text in an image buffer (any format tesseract reads; we pass PNG). */
export async function recogniseText(image: Buffer): Promise<string> {
  if (!worker) {
    worker = startWorker();
    // A failed start must not poison the thread: the next job tries again.
    worker.catch(() => {
      worker = null;
    });
  }
  const { data } = await (await worker).recognize(image);
  return data.text;
}
