import { findCredential } from '../kernel/credential-scan.ts';
import { NetRefusal } from './refusal.ts';

/** Query parameter names that carry credentials; a URL with one is never fetched. */
const CREDENTIAL_PARAMS =
  /^(?:access_?token|auth|authorization|api_?key|apikey|key|token|secret|client_secret|password|passwd|pwd|session|sessionid|sig|signature|x-amz-signature|x-goog-signature)$/i;

/** Something inside a URL that is itself a URL: a scheme with `//`, or a protocol-relative `//host`. */
const EMBEDDED_URL = /(?:^|[^a-z0-9+.-])(?:https?|ftp|wss?|file|data|javascript):|^\/\/[^/]/i;

function decodeFully(value: string): string {
  let current = value;
  for (let i = 0; i < 3; i++) {
    try {
      const next = decodeURIComponent(current.replace(/\+/g, ' '));
      if (next === current) break;
      current = next;
    } catch {
      break;
    }
  }
  return current;
}

/**
 * Checks a URL before any request: http or https only, an allowed port, no credentials of any
 * kind, and no other URL folded inside it (a reader is not a proxy for somewhere else).
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
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  if (!allowedPorts.has(port))
    throw new NetRefusal('PORT_NOT_ALLOWED', `Port ${port} is not allowed.`, { port });
  if (url.username || url.password)
    throw new NetRefusal('CREDENTIALS_IN_URL', 'The URL carries user credentials.');
  for (const [name, value] of url.searchParams) {
    if (CREDENTIAL_PARAMS.test(name)) {
      throw new NetRefusal('CREDENTIALS_IN_URL', `The query parameter "${name}" carries a credential.`);
    }
    if (EMBEDDED_URL.test(decodeFully(value).trim())) {
      throw new NetRefusal('NESTED_URL', `The query parameter "${name}" holds another URL.`, {
        parameter: name,
      });
    }
  }
  for (const segment of url.pathname.split('/')) {
    if (EMBEDDED_URL.test(decodeFully(segment))) {
      throw new NetRefusal('NESTED_URL', 'A path segment holds another URL.');
    }
  }
  if (/\/(?:https?|ftp):\/?\//i.test(decodeFully(url.pathname))) {
    throw new NetRefusal('NESTED_URL', 'The path holds another URL.');
  }
  const secret = findCredential(decodeFully(url.href));
  if (secret) throw new NetRefusal('CREDENTIALS_IN_URL', `The URL contains a credential (${secret.kind}).`);
  return url;
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}
