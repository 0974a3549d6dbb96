/**
 * Well-known sign-in surfaces: login forms, OAuth and OpenID authorisation endpoints, SSO and
 * SAML entry points. Reading one means stepping into someone's authentication flow, which a
 * public-page reader never does. Paths are matched by whole segment so that
 * `/blog/how-to-login-securely` or `/docs/signing-in` stay readable.
 */

/** Hosts that serve nothing but sign-in and account pages. */
const SIGN_IN_HOSTS = new Set([
  'accounts.google.com',
  'login.microsoftonline.com',
  'login.microsoft.com',
  'login.windows.net',
  'login.live.com',
  'account.live.com',
  'appleid.apple.com',
  'idmsa.apple.com',
  'signin.aws.amazon.com',
  'login.yahoo.com',
  'login.salesforce.com',
]);

/** First host labels that name a dedicated sign-in host (`login.example.com`, `sso.example.org`). */
const SIGN_IN_LABELS = new Set(['login', 'signin', 'sso']);

/** Hosted identity providers: tenant host suffix, and the paths on it that are sign-in flows. */
const IDP_TENANTS: Array<[suffix: string, path: RegExp]> = [
  ['.okta.com', /^\/(?:oauth2|login|sso|app)\//],
  ['.oktapreview.com', /^\/(?:oauth2|login|sso|app)\//],
  ['.auth0.com', /^\/(?:authorize|u|login|oauth|samlp|wsfed)(?:\/|$)/],
  ['.b2clogin.com', /^\//],
  ['.onelogin.com', /^\//],
];

/** Path segments that are a sign-in page wherever they appear. */
const SIGN_IN_SEGMENTS = new Set([
  'login',
  'log-in',
  'log_in',
  'logon',
  'log-on',
  'signin',
  'sign-in',
  'sign_in',
  'signon',
  'sign-on',
  'wp-login',
  'servicelogin',
]);

/** Segments that are an SSO entry point when they open the path (`/sso`, `/saml2/acs`). */
const LEADING_SSO_SEGMENTS = new Set(['sso', 'saml', 'saml2', 'adfs']);

/** Segments after which `authorize` or `auth` is an OAuth / OpenID Connect authorisation endpoint. */
const AUTHORIZATION_PARENTS = new Set(['oauth', 'oauth2', 'openid-connect', 'connect', 'o', 'oidc']);
const AUTHORIZATION_ENDPOINTS = new Set(['authorize', 'authorization', 'auth']);

// Server-side extensions are dropped so that `login.php` and `Login.aspx` count as `login`.
const PAGE_EXTENSION = /\.(?:php|aspx?|html?|jsp|do|cgi|action|pl)$/;

function segmentsOf(url: URL): string[] {
  return url.pathname
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      let decoded = s;
      try {
        decoded = decodeURIComponent(s);
      } catch {
        // An undecodable segment is judged as written.
      }
      // Path parameters (`login;jsessionid=…`) are not part of the name.
      return decoded.split(';')[0]!.toLowerCase().replace(PAGE_EXTENSION, '');
    });
}

function isAuthorizationRequest(url: URL, segments: string[]): boolean {
  const last = segments.at(-1);
  if (last === undefined || !AUTHORIZATION_ENDPOINTS.has(last)) return false;
  if (segments.slice(0, -1).some((s) => AUTHORIZATION_PARENTS.has(s))) return true;
  // `/authorize?client_id=…` wherever it is mounted.
  return last !== 'auth' && url.searchParams.has('client_id');
}

/**
 * True when `url` is a well-known sign-in surface: an identity provider's host, a login or
 * SSO path segment, or an OAuth authorisation request (`client_id` with `response_type`).
 */
export function isSignInSurface(url: URL): boolean {
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  if (SIGN_IN_HOSTS.has(host)) return true;
  // Only below a registered domain: `login.example.com` is a sign-in host, `login.gov` a site.
  const labels = host.split('.');
  if (labels.length >= 3 && SIGN_IN_LABELS.has(labels[0]!)) return true;
  for (const [suffix, path] of IDP_TENANTS) {
    if (host.endsWith(suffix) && path.test(url.pathname.toLowerCase())) return true;
  }
  const segments = segmentsOf(url);
  if (segments.some((s) => SIGN_IN_SEGMENTS.has(s))) return true;
  if (LEADING_SSO_SEGMENTS.has(segments[0] ?? '')) return true;
  // Rails and Devise: /session/new, /users/sessions/new.
  for (let i = 1; i < segments.length; i++) {
    if (segments[i] === 'new' && (segments[i - 1] === 'session' || segments[i - 1] === 'sessions'))
      return true;
  }
  if (isAuthorizationRequest(url, segments)) return true;
  return url.searchParams.has('client_id') && url.searchParams.has('response_type');
}
