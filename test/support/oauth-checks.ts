/**
 * Marks a describe block of the OAuth regression suite with the client it drives and the flow
 * it checks; `oauth-checks-reporter.ts` turns the marks into the results that
 * `GET /v1/public/oauth-client-checks` serves.
 *
 *   describe('authorization code with PKCE', oauthCheck('oauth4webapi', 'authorization code with PKCE'), () => …)
 */

/** The client side of a check: a real library, or requests written by hand (`fetch`). */
export type OAuthClient = 'oauth4webapi' | '@modelcontextprotocol/sdk' | 'fetch';

export interface OAuthCheckMark {
  client: OAuthClient;
  flow: string;
}

declare module 'vitest' {
  interface TaskMeta {
    oauthCheck?: OAuthCheckMark;
  }
}

export function oauthCheck(client: OAuthClient, flow: string): { meta: { oauthCheck: OAuthCheckMark } } {
  return { meta: { oauthCheck: { client, flow } } };
}
