/**
 * A LIKE/ILIKE pattern matching `text` anywhere, with LIKE's own characters (`%`, `_`, `\`)
 * escaped, so a search for "50%" finds "50%" and not everything.
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
