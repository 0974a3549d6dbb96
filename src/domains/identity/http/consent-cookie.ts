/**
 * The cookie that binds a consent request to the browser that started it at /oauth/authorize.
 * It is scoped to that request's review page and JSON paths, HttpOnly and SameSite=Lax; with
 * https it carries the __Secure- prefix (not __Host-, which would forbid the narrow path).
 */

const MAX_AGE_SECONDS = 10 * 60;

export function consentCookieName(baseUrl: string): string {
  return baseUrl.startsWith('https:') ? '__Secure-cairn_consent' : 'cairn_consent';
}

/** Set-Cookie values for the review page and the JSON API of one request. */
export function consentCookies(baseUrl: string, requestId: string, binding: string): string[] {
  const secure = baseUrl.startsWith('https:') ? '; Secure' : '';
  const name = consentCookieName(baseUrl);
  return [`/console/authorize/${requestId}`, `/v1/oauth/requests/${requestId}`].map(
    (path) => `${name}=${binding}; Path=${path}; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax${secure}`,
  );
}
