import { createHash, randomBytes } from 'node:crypto';
import { OAuthClientService } from '../../src/domains/identity/index.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import type { TestServer } from './test-server.ts';

export interface PendingConsent {
  requestId: string;
  clientId: string;
  redirectUri: string;
  /** The PKCE verifier whose S256 challenge the request carries. */
  verifier: string;
  /** The browser binding /oauth/authorize would have set as the consent cookie. */
  binding: string;
}

/**
 * A consent request waiting for an owner, made as `GET /oauth/authorize` would: a public client
 * registered through the domain, then an S256 authorization request filed for review.
 */
export async function startConsent(
  server: TestServer,
  clock: Clock,
  opts: { redirectUri?: string; clientName?: string; state?: string } = {},
): Promise<PendingConsent> {
  const redirectUri = opts.redirectUri ?? 'http://127.0.0.1:9/cb';
  const client = await new OAuthClientService(server.database, clock).register({
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'none',
    client_name: opts.clientName ?? 'Test client',
  });
  const verifier = randomBytes(32).toString('base64url');
  const outcome = await server.app.services.oauth.startAuthorization({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: opts.state ?? 'xyz',
    scope: 'mcp',
  });
  if (outcome.kind !== 'review')
    throw new Error(`authorization not filed for review: ${JSON.stringify(outcome)}`);
  return {
    requestId: outcome.requestId,
    clientId: client.client_id,
    redirectUri,
    verifier,
    binding: outcome.binding,
  };
}
