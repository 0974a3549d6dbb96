/** Why the guarded fetcher would not, or could not, read a URL. Domains map these to their errors. */
export type NetRefusalReason =
  | 'SCHEME_NOT_ALLOWED'
  | 'PORT_NOT_ALLOWED'
  | 'CREDENTIALS_IN_URL'
  | 'NESTED_URL'
  | 'HOST_BLOCKED'
  | 'ADDRESS_NOT_PUBLIC'
  | 'DNS_FAILED'
  | 'REDIRECT_OUT_OF_SCOPE'
  | 'TOO_MANY_REDIRECTS'
  | 'RESPONSE_TOO_LARGE'
  | 'TIMEOUT'
  | 'CONNECTION_FAILED';

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
