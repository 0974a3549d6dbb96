/** Edit distance (insertions, deletions, substitutions) between two short names. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The candidates closest to a mistyped name, best first: those within a third of its length in
 * edits (at least two), or containing it or contained in it. At most `limit`.
 */
export function closestNames(name: string, candidates: readonly string[], limit = 3): string[] {
  const wanted = name.toLowerCase().slice(0, 100);
  const allowed = Math.max(2, Math.floor(wanted.length / 3));
  return candidates
    .map((candidate) => ({ candidate, d: distance(wanted, candidate.toLowerCase()) }))
    .filter(
      ({ candidate, d }) =>
        d <= allowed ||
        (wanted.length >= 4 && candidate.includes(wanted)) ||
        (candidate.length >= 4 && wanted.includes(candidate)),
    )
    .sort((x, y) => x.d - y.d || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}
