/**
 * How long a response stays fresh by its own caching headers (RFC 9111 §4.2.1): the
 * `Cache-Control` max-age, else `Expires` less `Date`, each less the `Age` it already has.
 * `no-store` and `no-cache` make it stale at once (no-cache means "ask again before each use",
 * and the reader here has no revalidation). Without any of these the caller's default applies
 * (a heuristic lifetime, §4.2.2); every answer is held within the caller's bounds.
 */
export function freshSeconds(
  headers: Readonly<Record<string, string>>,
  bounds: { defaultSeconds: number; maxSeconds: number },
  now: Date,
): number {
  const directives = cacheControl(headers['cache-control']);
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  const age = wholeSeconds(headers.age) ?? 0;
  const maxAge = directives.get('max-age');
  let lifetime: number | null = null;
  if (maxAge !== undefined) {
    // A malformed max-age counts as stale (§5.2.1.1, §4.2.1: "invalid … treat as stale").
    lifetime = wholeSeconds(maxAge) ?? 0;
  } else if (headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    const date = headers.date !== undefined ? Date.parse(headers.date) : now.getTime();
    // An invalid Expires, "0" included, means already expired (§5.3).
    lifetime = Number.isNaN(expires)
      ? 0
      : Math.floor((expires - (Number.isNaN(date) ? now.getTime() : date)) / 1000);
  }
  const fresh = (lifetime ?? bounds.defaultSeconds) - age;
  return Math.max(0, Math.min(fresh, bounds.maxSeconds));
}

/** Cache-Control directives by lower-case name; a value without quotes. */
function cacheControl(header: string | undefined): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...value] = part.split('=');
    const key = name?.trim().toLowerCase();
    if (!key) continue;
    const joined = value
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1');
    out.set(key, value.length ? joined : undefined);
  }
  return out;
}

/** A delta-seconds value (§1.2.2): digits only; null for anything else. */
function wholeSeconds(value: string | undefined): number | null {
  if (value === undefined || !/^\d{1,10}$/.test(value.trim())) return null;
  return Number(value.trim());
}
