/**
 * Percent-decoding for scanning URLs (never for building them). Tolerant: a stray `%` or an
 * invalid UTF-8 sequence in one place does not stop the rest of the text from being decoded,
 * so one malformed escape cannot hide an encoded token or URL elsewhere in the same text.
 */

/** Undoes up to `rounds` layers of percent-encoding (`+` as a space first, for query text). */
export function decodeRepeatedly(value: string, rounds: number, plusIsSpace = false): string {
  let current = value;
  for (let i = 0; i < rounds; i++) {
    const next = (plusIsSpace ? current.replace(/\+/g, ' ') : current).replace(
      /(?:%[0-9a-f]{2})+/gi,
      decodeRun,
    );
    if (next === current) break;
    current = next;
  }
  return current;
}

/** One run of `%XX` escapes: as UTF-8 when it is valid, else only its ASCII bytes. */
function decodeRun(run: string): string {
  try {
    return decodeURIComponent(run);
  } catch {
    return run.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
}
