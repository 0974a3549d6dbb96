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
