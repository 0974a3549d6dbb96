import { findCredential } from '../kernel/credential-scan.ts';
import { findNestedUrl } from './nested-url.ts';
import { decodeRepeatedly } from './percent.ts';
import { NetRefusal } from './refusal.ts';

/**
 * Query parameter names that carry credentials; a URL with one is never fetched. Pagination
 * tokens (`pageToken`, `next_token`) are not on the list: they are cursors, not secrets.
 */
const CREDENTIAL_PARAMS = new RegExp(
  `^(?:${[
    '(?:access|refresh|id|auth|oauth|session|private|api|bearer|security|app|client|user)?[-_]?token',
    'x-amz-security-token',
    '(?:api|access|private|secret|app|client|subscription)?[-_]?key',
    '(?:client|app|api|consumer)?[-_]?secret',
    'auth|authorization|authentication|credentials?|bearer|jwt|otp',
    'pass|passwd|password|passphrase|pwd',
    'session|session[-_]?id|phpsessid|jsessionid',
    'sig|signature|x-amz-signature|x-amz-credential|x-goog-signature|x-goog-credential',
  ].join('|')})$`,
  'i',
);

/** Percent-encoding undone before scanning for secrets, tolerantly (see percent.ts). */
const decodeForScan = (value: string) => decodeRepeatedly(value, 5);

/**
 * Why `url` (parsed from `raw`) carries a credential, or null: user info, a credential-named
 * query parameter, a session id path parameter, or a secret-shaped string anywhere in the URL
 * once fully percent-decoded (the parsed form, the text as given, which may differ in case, and
 * each query value).
 */
function credentialIn(url: URL, raw: string): string | null {
  if (url.username || url.password) return 'The URL carries user credentials.';
  for (const name of url.searchParams.keys()) {
    if (CREDENTIAL_PARAMS.test(name.trim())) return `The query parameter "${name}" carries a credential.`;
  }
  // Java and PHP session ids also travel as path parameters: /page;jsessionid=…
  if (/;\s*(?:jsessionid|phpsessid)=/i.test(url.pathname)) return 'The path carries a session id.';
  // Query values are scanned as a server reads them too (`+` is a space there).
  const values = [...url.searchParams.values()].map(decodeForScan);
  const secret = findCredential([decodeForScan(url.href), decodeForScan(raw), ...values]);
  return secret ? `The URL contains a credential (${secret.kind}).` : null;
}

/**
 * True when `raw` carries a credential by any check `checkTargetUrl` makes (user info,
 * credential-named query parameters, `;jsessionid=`, a secret-shaped string once decoded),
 * whatever else is wrong with it. Text that does not parse as a URL is scanned as decoded text.
 * For redacting receipts and redirect targets before they are stored or shown.
 */
export function urlCarriesCredential(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return findCredential(decodeForScan(raw)) !== null;
  }
  return credentialIn(url, raw) !== null;
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * Checks a URL before any request: no credentials of any kind (checked first, so a URL that
 * carries a secret is refused as CREDENTIALS_IN_URL whatever else is wrong with it), http or
 * https only, an allowed port, and no other URL folded inside it (a reader is not a proxy for
 * somewhere else). Returns the parsed URL; throws NetRefusal otherwise.
 */
export function checkTargetUrl(
  raw: string,
  allowedPorts: ReadonlySet<number>,
  /** The operator's CAIRN_FETCH_ALLOW: an explicit host:port entry allows that port for that host. */
  allowedHosts: ReadonlySet<string> = new Set(),
): URL {
  const url = parseUrl(raw);
  const credential = credentialIn(url, raw);
  if (credential) throw new NetRefusal('CREDENTIALS_IN_URL', credential);
  checkScheme(url);
  const port = portOf(url);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!allowedPorts.has(port) && !allowedHosts.has(`${host}:${port}`))
    throw new NetRefusal('PORT_NOT_ALLOWED', `Port ${port} is not allowed.`, { port });
  const nested = findNestedUrl(url);
  if (nested) {
    throw new NetRefusal('NESTED_URL', `The URL holds another URL (${nested.where}).`, { ...nested });
  }
  return url;
}

/**
 * Checks the URL of an operator-configured service (built by Cairn from configuration and,
 * say, a search query): http or https only, any port. Its content is not judged, since an
 * agent's query may well name a URL; the caller sends it nowhere but the configured endpoint.
 */
export function checkServiceUrl(raw: string): URL {
  const url = parseUrl(raw);
  checkScheme(url);
  return url;
}

function parseUrl(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new NetRefusal('SCHEME_NOT_ALLOWED', 'Not a valid absolute URL.');
  }
}

function checkScheme(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NetRefusal('SCHEME_NOT_ALLOWED', `Only http and https are read, not ${url.protocol}`);
  }
}
