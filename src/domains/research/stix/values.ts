/**
 * The small conversions from Cairn's stored values to STIX property values: timestamps, hashes,
 * URLs, CVE ids and purls found in text. Pure, so the builder stays deterministic.
 */
import { DomainError } from '../../../kernel/errors.ts';

/** STIX 2.1 timestamps with millisecond precision, which `created`/`modified` require. */
const STIX_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
// An explicit zone is required: a zone-less time would be read in the server's local zone,
// so the same record could export differently on two machines.
const HAS_ZONE = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** A refusal the caller reports as VALIDATION_FAILED (HTTPValidationError-style detail). */
export function invalidExport(loc: string, msg: string, type: string): DomainError {
  return new DomainError('VALIDATION_FAILED', msg, {
    detail: [{ loc: ['body', ...loc.split('.')], msg, type }],
  });
}

/** A stored timestamp as STIX `YYYY-MM-DDTHH:mm:ss.sssZ`, truncated to milliseconds. */
export function stixTime(value: string, loc: string): string {
  const ms = HAS_ZONE.test(value.trim()) ? Date.parse(value) : Number.NaN;
  const out = Number.isNaN(ms) ? '' : new Date(ms).toISOString();
  if (!STIX_TIME.test(out))
    throw invalidExport(loc, `${loc} is not a timestamp with a time zone`, 'timestamp');
  return out;
}

/** The later of a record's created and updated times, so `modified >= created` always holds. */
export function modifiedTime(created: string, updated: string | null | undefined, loc: string): string {
  if (updated == null) return created;
  const later = stixTime(updated, loc);
  return later > created ? later : created;
}

export function earliest(times: readonly string[]): string {
  return times.reduce((a, b) => (b < a ? b : a));
}

export function latest(times: readonly string[]): string {
  return times.reduce((a, b) => (b > a ? b : a));
}

/** `sha256:<hex>` or bare hex -> the lower-case 64 hex digits STIX `hashes` expects. */
export function sha256Hex(value: string, loc: string): string {
  const hex = value.replace(/^sha256:/i, '').toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw invalidExport(loc, `${loc} is not a SHA-256 digest`, 'sha256');
  return hex;
}

/**
 * An http(s) URL in the WHATWG form (which percent-encodes what RFC 3986 forbids, so the schema's
 * `uri` format holds); null for anything else: a malformed declared source is left out, not guessed.
 */
export function webUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

// The CVE id syntax itself (CVE-YYYY-NNNN, four digits with a leading zero or more without),
// the same rule as the STIX external-reference schema; bounded at 7 sequence digits. The
// boundaries keep `XCVE-...` and `CVE-2024-12345678` from yielding a shorter, wrong id.
const CVE = /(?<![A-Za-z0-9-])CVE-\d{4}-(?:0\d{3}|[1-9]\d{3,6})(?![A-Za-z0-9])/g;

/** Distinct CVE ids in a text, sorted; upper case only, as CVE ids are written. */
export function cveIds(text: string): string[] {
  return [...new Set(text.match(CVE) ?? [])].sort();
}

// A purl (package-url spec): `pkg:type/namespace/name@version?qualifiers#subpath`.
const PURL = /pkg:[A-Za-z][A-Za-z0-9.+-]*\/[A-Za-z0-9.\-_~%!$&'*+=:@/?#]+/g;

/** Distinct purls in a text, trailing sentence punctuation removed. */
export function purlsIn(text: string): string[] {
  const found = (text.match(PURL) ?? []).map((p) => p.replace(/[.,;:!?]+$/, ''));
  return [...new Set(found)].sort();
}

/** Name and version a purl carries; null when it does not parse (bad percent-encoding, no name). */
export function parsePurl(purl: string): { name: string; version: string | null } | null {
  const body = purl.replace(/^pkg:[^/]+\//, '').replace(/[?#].*$/, '');
  const at = body.lastIndexOf('@');
  const path = at > body.lastIndexOf('/') ? body.slice(0, at) : body;
  const rawVersion = at > body.lastIndexOf('/') ? body.slice(at + 1) : '';
  try {
    const name = decodeURIComponent(path.split('/').pop() ?? '');
    const version = rawVersion ? decodeURIComponent(rawVersion) : null;
    return name ? { name, version } : null;
  } catch {
    return null;
  }
}

/** A short abstract: the first line of a text, cut at a word boundary near `max` characters. */
export function abstractOf(text: string, max = 120): string {
  const line = text.trim().split('\n')[0]!.trim();
  const chars = [...line]; // code points, so a cut never splits a surrogate pair
  if (chars.length <= max) return line;
  const cut = chars.slice(0, max - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
