/**
 * Console pages may load only this origin's stylesheet, may not be framed, and may post forms
 * only here. No `upgrade-insecure-requests`: over plain http it would break every form.
 */
export const CONSOLE_CSP = "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

/** A DNS name or dotted IPv4 address, as the URL parser normalises hosts (lowercase, punycode). */
const HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*$/;
/** RFC 3986 scheme, with its colon: a CSP scheme-source. */
const SCHEME = /^[a-z][a-z0-9+.-]*:$/;

/** An IPv6 literal as the URL parser writes it. */
const IPV6 = /^\[[0-9a-f:.]+\]$/;

/**
 * The CSP source expression that lets a form's redirect reach `uri`: its origin for http(s),
 * its scheme for a private-use scheme (`com.example.app:`). CSP host-source cannot express an
 * IPv6 literal (`http://[::1]:8080`), so that gets its scheme alone. Null when the URI does not
 * fit the grammar exactly, so nothing taken from a client's registration can add a directive or
 * a quote to the header.
 */
export function formTargetSource(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  const scheme = url.protocol.toLowerCase();
  if (!SCHEME.test(scheme)) return null;
  if (scheme !== 'http:' && scheme !== 'https:') return scheme;
  if (IPV6.test(url.hostname)) return scheme;
  if (!HOST.test(url.hostname)) return null;
  if (url.port && !/^\d{1,5}$/.test(url.port)) return null;
  return `${scheme}//${url.hostname}${url.port ? `:${url.port}` : ''}`;
}

/**
 * The console's policy with `form-action` extended to a consent request's return address.
 * Browsers apply form-action to the redirects that follow a form post too (CSP3 §6.3.1.1),
 * so without it the 303 back to the application after Allow or Decline would be blocked.
 */
export function consentCsp(redirectUri: string): string {
  const source = formTargetSource(redirectUri);
  return source ? CONSOLE_CSP.replace("form-action 'self'", `form-action 'self' ${source}`) : CONSOLE_CSP;
}
