/** Whitespace tidying for extracted text (PDF pages, OCR output). */

/** Collapses runs of spaces/tabs, trims each line, keeps at most one blank line in a row. */
export function tidyLines(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
