import { findCredential } from '../kernel/credential-scan.ts';
import { findNestedUrl } from './nested-url.ts';
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

function decodeForScan(value: string): string {
  let current = value;
  for (let i = 0; i < 5; i++) {
    try {
      const next = decodeURIComponent(current);
      if (next === current) break;
      current = next;
    } catch {
      break;
    }
  }
  return current;
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * Checks a URL before any request: http or https only, an allowed port, no credentials of any
 * kind, and no other URL folded inside it (a reader is not a proxy for somewhere else).
 * Returns the parsed URL; throws NetRefusal otherwise.
 */
export function checkTargetUrl(raw: string, allowedPorts: ReadonlySet<number>): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new NetRefusal('SCHEME_NOT_ALLOWED', 'Not a valid absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NetRefusal('SCHEME_NOT_ALLOWED', `Only http and https are read, not ${url.protocol}`);
  }
  const port = portOf(url);
  if (!allowedPorts.has(port))
    throw new NetRefusal('PORT_NOT_ALLOWED', `Port ${port} is not allowed.`, { port });
  if (url.username || url.password)
    throw new NetRefusal('CREDENTIALS_IN_URL', 'The URL carries user credentials.');
  for (const name of url.searchParams.keys()) {
    if (CREDENTIAL_PARAMS.test(name.trim())) {
      throw new NetRefusal('CREDENTIALS_IN_URL', `The query parameter "${name}" carries a credential.`);
    }
  }
  // Java and PHP session ids also travel as path parameters: /page;jsessionid=…
  if (/;\s*(?:jsessionid|phpsessid)=/i.test(url.pathname))
    throw new NetRefusal('CREDENTIALS_IN_URL', 'The path carries a session id.');
  const nested = findNestedUrl(url);
  if (nested) {
    throw new NetRefusal('NESTED_URL', `The URL holds another URL (${nested.where}).`, { ...nested });
  }
  const secret = findCredential(decodeForScan(url.href));
  if (secret) throw new NetRefusal('CREDENTIALS_IN_URL', `The URL contains a credential (${secret.kind}).`);
  return url;
}
