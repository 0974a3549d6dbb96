/**
 * Research imports' bounds (SPEC "Research imports" limits), enforced in the parser pool: the
 * file, its pages and pixels, the OCR render, the subprocesses per worker. Reading publishes them.
 */
export const IMPORT_LIMITS = {
  fileBytes: 12 * 1024 * 1024,
  pdfPages: 40,
  embeddedImagePixels: 20_000_000,
  pagePixels: 40_000_000,
  ocrRenderPixels: 20_000_000,
  parserProcessesPerWorker: 2,
  logLines: 5_000,
} as const;
