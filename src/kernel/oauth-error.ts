/**
 * An OAuth 2.0 error (RFC 6749 §5.2, RFC 8628 §3.5): the token and device endpoints answer in
 * this shape, `{error, error_description}`, not in Cairn's envelope, because OAuth clients
 * and libraries read exactly these codes.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  | 'invalid_client_metadata'
  | 'invalid_redirect_uri'
  | 'unsupported_response_type'
  | 'invalid_target'
  | 'unauthorized_client'
  | 'temporarily_unavailable'
  /** RFC 6750 §3.1: a bearer token that is missing where required, expired, revoked or invalid. */
  | 'invalid_token';

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    /** Set when the caller must wait (a throttle): the answer is then 429 with Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  /** RFC 6749: 401 for a failed client authentication, 400 for everything else; 429 to wait. */
  get httpStatus(): number {
    if (this.retryAfterSeconds !== undefined) return 429;
    return this.error === 'invalid_client' || this.error === 'invalid_token' ? 401 : 400;
  }
}

/**
 * The OAuth error codes Cairn answers with, where and when: `/v1/public/errors` publishes them
 * beside the envelope codes (SPEC Errors lists `invalid_client` at the token endpoint). Typed by
 * code, so a code added to OAuthErrorCode without its entry here does not compile.
 */
export const OAUTH_ERROR_REFERENCE: Record<OAuthErrorCode, { where: string; when: string }> = {
  invalid_request: {
    where: '/oauth/token, /oauth/device_authorization, /oauth/authorize',
    when: 'A required parameter is missing, repeated or malformed.',
  },
  invalid_client: {
    where: '/oauth/token, /oauth/revoke (HTTP 401)',
    when: 'Client authentication failed: an unknown client, a wrong secret, an expired bootstrap token, or the identity behind it was revoked.',
  },
  invalid_grant: {
    where: '/oauth/token',
    when: 'The code, device code or refresh token is unknown, used, expired, revoked, or does not match the request (redirect_uri, code_verifier).',
  },
  unsupported_grant_type: { where: '/oauth/token', when: 'The grant_type is not one Cairn supports.' },
  invalid_scope: { where: '/oauth/token, /oauth/authorize', when: 'A scope other than mcp was asked for.' },
  authorization_pending: {
    where: '/oauth/token (device grant)',
    when: 'The owner has not decided the pairing yet; poll again after the interval.',
  },
  slow_down: {
    where: '/oauth/token (device grant)',
    when: 'Polled faster than the interval; wait 5 s longer.',
  },
  access_denied: {
    where: '/oauth/token (device grant), the authorization redirect',
    when: 'The owner declined.',
  },
  expired_token: {
    where: '/oauth/token (device grant)',
    when: 'The device code expired; start pairing again.',
  },
  invalid_client_metadata: { where: '/oauth/register', when: 'A client metadata field is not acceptable.' },
  invalid_redirect_uri: { where: '/oauth/register', when: 'A redirect URI is not acceptable.' },
  unsupported_response_type: { where: '/oauth/authorize', when: 'response_type is not code.' },
  invalid_target: {
    where: '/oauth/token, /oauth/authorize',
    when: 'The resource is not this server’s /mcp.',
  },
  unauthorized_client: {
    where: '/oauth/token',
    when: 'The client is not allowed this grant type (its registration did not ask for it).',
  },
  temporarily_unavailable: {
    where: '/oauth/token (HTTP 429 with Retry-After)',
    when: 'Too many failed attempts for this client or address; retry after the time given.',
  },
  invalid_token: {
    where: '/mcp and other bearer endpoints (WWW-Authenticate, RFC 6750)',
    when: 'The bearer token is expired, revoked or invalid.',
  },
};
