/** Why the guarded fetcher would not, or could not, read a URL. Domains map these to their errors. */
export type NetRefusalReason =
  /** Not http or https, or not a parseable absolute URL at all. */
  | 'SCHEME_NOT_ALLOWED'
  /** A port other than 80, 443 and CAIRN_FETCH_PORTS. */
  | 'PORT_NOT_ALLOWED'
  /** User info, a credential-named query parameter, or a secret-shaped string in the URL. */
  | 'CREDENTIALS_IN_URL'
  /** Another URL folded into a query value or path segment, encoded or not. */
  | 'NESTED_URL'
  /** A well-known sign-in, authorisation or SSO page: reading it means acting as a user. */
  | 'SIGN_IN_SURFACE'
  /** The site's robots.txt disallows Cairn's user agent here (or could not be read: 5xx or unreachable). */
  | 'ROBOTS_DISALLOWED'
  /** A local or cloud-internal host name, refused whatever it resolves to. */
  | 'HOST_BLOCKED'
  /** The host is, or resolves to, an address that is not public unicast. */
  | 'ADDRESS_NOT_PUBLIC'
  /** The host name could not be resolved. */
  | 'DNS_FAILED'
  /** A redirect hop failed one of the checks above; details.redirect_target and details.cause say which. */
  | 'REDIRECT_OUT_OF_SCOPE'
  /** More redirects than allowed. */
  | 'TOO_MANY_REDIRECTS'
  /** The body, raw or decoded, exceeds the size cap. */
  | 'RESPONSE_TOO_LARGE'
  /** A content encoding Cairn does not decode, or more layers of encoding than it will unwrap. */
  | 'UNSUPPORTED_ENCODING'
  /** The body arrived whole but is not valid data of its gzip, deflate or br encoding: not retryable. */
  | 'UNDECODABLE_BODY'
  /** The whole read took longer than its deadline. */
  | 'TIMEOUT'
  /** The connection failed, or the body broke off before it was received. */
  | 'CONNECTION_FAILED';

/** A refusal to read (before any request) or a failure while reading; `details` are safe to show. */
export class NetRefusal extends Error {
  constructor(
    readonly reason: NetRefusalReason,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'NetRefusal';
  }
}
