/**
 * A window of `text`: `maxChars` UTF-16 code units from `offset`, never splitting a surrogate
 * pair, and where the rest starts (`next_offset`, null at the end). Workspace files and published
 * artifacts are read this way.
 */
export function textWindow(text: string, offset: number, maxChars: number) {
  const total = text.length;
  const isLow = (i: number) => i > 0 && i < total && /[\uDC00-\uDFFF]/.test(text[i] ?? '');
  let start = Math.min(offset, total);
  let end = Math.min(start + maxChars, total);
  if (isLow(start)) start -= 1;
  if (isLow(end)) end -= 1;
  return {
    content: text.slice(start, end),
    range: { offset: start, end, total_chars: total, next_offset: end < total ? end : null },
  };
}
