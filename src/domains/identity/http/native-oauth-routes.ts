import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { OAuthError } from '../../../kernel/oauth-error.ts';
import { messagePage } from '../../../web/console/layout.ts';
import { allowAnyOrigin } from '../../../web/http/cors.ts';
import { answers } from '../../../web/http/openapi.ts';
import { registerRateLimit } from '../../../web/http/rate-limit.ts';
import { CLIENT_DOCUMENT } from '../credentials/client-metadata.ts';
import { registrationSchema } from '../credentials/oauth-clients.ts';
import { consentCookies } from './consent-cookie.ts';
import { clientCredentials, guarded, installOAuthErrors, noStore, sendOAuthError } from './oauth-reply.ts';
import type { OAuthDeps } from './oauth-routes.ts';

const authorizeQuery = z.object({
  response_type: z.string().max(100).optional(),
  client_id: z.string().max(CLIENT_DOCUMENT.urlChars).optional(),
  redirect_uri: z.string().max(2_000).optional(),
  code_challenge: z.string().max(200).optional(),
  code_challenge_method: z.string().max(20).optional(),
  state: z.string().max(2_000).optional(),
  scope: z.string().max(500).optional(),
  resource: z.string().max(2_000).optional(),
});

/** An authorization error page, in the console's look; with `back`, a link returning the error to the application. */
function errorPage(message: string, back?: { location: string; host: string }): string {
  return messagePage({
    title: 'This sign-in request cannot continue',
    message: `${message} Nothing was shared.`,
    links: back ? [[back.location, `Return to ${back.host}`]] : [],
  }).value;
}

/**
 * Native OAuth for MCP clients: dynamic registration (RFC 7591), the authorization endpoint
 * that hands the owner a review page, and token revocation (RFC 7009).
 */
export async function nativeOAuthRoutes(app: FastifyInstance, deps: OAuthDeps): Promise<void> {
  installOAuthErrors(app);
  allowAnyOrigin(app, ['/oauth/register', '/oauth/revoke'], {
    methods: ['POST'],
    headers: ['content-type', 'authorization'],
  });
  await registerRateLimit(app, {
    perMinute: deps.ratePerMinute,
    name: 'oauth-native',
    redis: deps.redis,
    who: 'from this address',
  });

  app.post(
    '/oauth/register',
    {
      config: answers([201]),
      schema: { tags: ['oauth'], summary: 'Dynamic client registration (RFC 7591)' },
    },
    async (req, reply) => {
      const parsed = registrationSchema.safeParse(req.body ?? {});
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        const where = first?.path.map(String).join('.') || 'body';
        return sendOAuthError(
          reply,
          new OAuthError('invalid_client_metadata', `${where}: ${first?.message ?? 'invalid'}`),
        );
      }
      try {
        return noStore(reply)
          .code(201)
          .send(await deps.clients.register(parsed.data));
      } catch (err) {
        if (err instanceof OAuthError) return sendOAuthError(reply, err);
        throw err;
      }
    },
  );

  app.get(
    '/oauth/authorize',
    { schema: { tags: ['oauth'], summary: 'Authorization endpoint (code flow, S256 PKCE)' } },
    async (req, reply) => {
      const parsed = authorizeQuery.safeParse(req.query ?? {});
      const outcome = parsed.success
        ? await deps.consent.startAuthorization(parsed.data)
        : { kind: 'page_error' as const, message: 'The authorization request is malformed.' };
      if (outcome.kind === 'page_error') {
        return reply
          .code(400)
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .send(errorPage(outcome.message));
      }
      // Known client and return address: the error goes back there (RFC 6749 §4.1.2.1), by
      // redirect when the domain trusts the address, else through a link the person may follow.
      if (outcome.kind === 'redirect') {
        return reply
          .code(302)
          .header('cache-control', 'no-store')
          .header('location', outcome.location)
          .send();
      }
      if (outcome.kind === 'error_return') {
        return reply
          .code(400)
          .type('text/html; charset=utf-8')
          .header('cache-control', 'no-store')
          .send(errorPage(`${outcome.error}: ${outcome.description}`, outcome));
      }
      return reply
        .code(302)
        .header('cache-control', 'no-store')
        .header('location', `/console/authorize/${outcome.requestId}`)
        .header('set-cookie', consentCookies(deps.baseUrl, outcome.requestId, outcome.binding))
        .send();
    },
  );

  app.post(
    '/oauth/revoke',
    { schema: { tags: ['oauth'], summary: 'Token revocation (RFC 7009)' } },
    async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const token = typeof body.token === 'string' ? body.token.slice(0, 512) : '';
      if (!token) return sendOAuthError(reply, new OAuthError('invalid_request', 'token is required.'));
      try {
        const presented = clientCredentials(
          req.headers.authorization,
          typeof body.client_id === 'string' ? body.client_id.slice(0, CLIENT_DOCUMENT.urlChars) : undefined,
          typeof body.client_secret === 'string' ? body.client_secret.slice(0, 512) : undefined,
        );
        await guarded(deps.secrets, presented, req, async () => {
          const client = presented.id
            ? await deps.clients.authenticate(presented.id, presented.secret, presented.method)
            : null;
          await deps.grants.revokeToken(token, client);
        });
      } catch (err) {
        if (err instanceof OAuthError)
          return sendOAuthError(reply, err, undefined, req.headers.authorization);
        throw err;
      }
      // 200 whether or not the token existed (§2.2): a caller learns nothing about other tokens.
      return noStore(reply).code(200).send({});
    },
  );
}
