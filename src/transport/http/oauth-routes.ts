import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { DEVICE_GRANT } from '../../domains/discovery/index.ts';
import {
  type DeviceService,
  deviceRequestSchema,
  type OAuthClientService,
  type OAuthConsentService,
  registrationSchema,
  type TokenService,
} from '../../domains/identity/index.ts';
import { OAuthError } from '../../kernel/oauth-error.ts';
import { registerRateLimit } from './rate-limit.ts';

export interface OAuthDeps {
  device: DeviceService;
  tokens: TokenService;
  clients: OAuthClientService;
  consent: OAuthConsentService;
  baseUrl: string;
  ratePerMinute: number;
  redis: Redis | null;
}

const secret = z.string().min(1).max(512);
const clientId = z.string().max(200).optional();

const tokenRequest = z.discriminatedUnion('grant_type', [
  z.object({
    grant_type: z.literal(DEVICE_GRANT),
    device_code: secret,
    client_id: z.string().max(200).optional(),
  }),
  z.object({
    grant_type: z.literal('client_credentials'),
    client_secret: secret,
    client_id: z.string().max(200).optional(),
  }),
  z.object({
    grant_type: z.literal('refresh_token'),
    refresh_token: secret,
    client_id: clientId,
    client_secret: secret.optional(),
    scope: z.string().max(200).optional(),
    resource: z.string().max(2_000).optional(),
  }),
  z.object({
    grant_type: z.literal('authorization_code'),
    code: secret,
    redirect_uri: z.string().max(2_000).optional(),
    code_verifier: z.string().max(200).optional(),
    client_id: clientId,
    client_secret: secret.optional(),
    resource: z.string().max(2_000).optional(),
  }),
]);

const GRANTS = new Set([DEVICE_GRANT, 'client_credentials', 'refresh_token', 'authorization_code']);

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1: form-encoded id and secret), if sent. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]{1,2000})$/i.exec(header ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    return null;
  }
}

const authorizeQuery = z.object({
  response_type: z.string().max(100).optional(),
  client_id: z.string().max(200).optional(),
  redirect_uri: z.string().max(2_000).optional(),
  code_challenge: z.string().max(200).optional(),
  code_challenge_method: z.string().max(20).optional(),
  state: z.string().max(2_000).optional(),
  scope: z.string().max(500).optional(),
  resource: z.string().max(2_000).optional(),
});

/** A plain page for authorization errors that must not be sent back to an unverified client. */
function errorPage(message: string): string {
  const escaped = message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization failed</title><link rel="stylesheet" href="/console/style.css"></head><body><main><h1>This sign-in request cannot continue</h1><p>${escaped}</p><p>Go back to the application and start again. Nothing was shared.</p></main></body></html>`;
}

/** OAuth answers are never cached (RFC 6749 §5.1). */
function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

function sendOAuthError(reply: FastifyReply, err: OAuthError, detail?: unknown) {
  return noStore(reply)
    .code(err.httpStatus)
    .send({ error: err.error, error_description: err.description, ...(detail ? { detail } : {}) });
}

function invalidRequest(reply: FastifyReply, issues: z.core.$ZodIssue[]) {
  const detail = issues.map((i) => ({ loc: ['body', ...i.path.map(String)], msg: i.message, type: i.code }));
  const summary = detail.map((d) => `${d.loc.slice(1).join('.') || 'body'}: ${d.msg}`).join('; ');
  return sendOAuthError(reply, new OAuthError('invalid_request', summary), detail);
}

/**
 * `/oauth/device_authorization` and `/oauth/token`: JSON or form-encoded bodies, OAuth-shaped
 * answers and errors (RFC 6749, RFC 8628), rate limited per client address.
 */
export async function oauthRoutes(app: FastifyInstance, deps: OAuthDeps): Promise<void> {
  await registerRateLimit(app, {
    perMinute: deps.ratePerMinute,
    name: 'oauth',
    redis: deps.redis,
    who: 'from this address',
  });

  app.post(
    '/oauth/device_authorization',
    { schema: { tags: ['oauth'], summary: 'Start device pairing (RFC 8628)' } },
    async (req, reply) => {
      const parsed = deviceRequestSchema.safeParse(req.body ?? {});
      if (!parsed.success) return invalidRequest(reply, parsed.error.issues);
      return noStore(reply).send(await deps.device.authorize(parsed.data));
    },
  );

  app.post(
    '/oauth/token',
    { schema: { tags: ['oauth'], summary: 'Token endpoint: device, client_credentials, refresh_token' } },
    async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const grant = body.grant_type;
      if (typeof grant !== 'string' || !GRANTS.has(grant)) {
        const err =
          typeof grant === 'string'
            ? new OAuthError(
                'unsupported_grant_type',
                `grant_type ${JSON.stringify(grant.slice(0, 80))} is not supported.`,
              )
            : new OAuthError('invalid_request', 'grant_type is required.');
        return sendOAuthError(reply, err);
      }
      const parsed = tokenRequest.safeParse(body);
      if (!parsed.success) return invalidRequest(reply, parsed.error.issues);
      const r = parsed.data;
      try {
        let answer: unknown;
        if (r.grant_type === DEVICE_GRANT) answer = await deps.device.poll(r.device_code);
        else if (r.grant_type === 'client_credentials')
          answer = await deps.tokens.exchangeBootstrap(r.client_secret);
        else {
          const basic = basicCredentials(req.headers.authorization);
          const id = basic?.id ?? r.client_id;
          // Device-paired runtimes refresh without a registered client; registered ones must authenticate.
          const client =
            r.grant_type === 'authorization_code' || id?.startsWith('cli_')
              ? await deps.clients.authenticate(id, basic?.secret ?? r.client_secret)
              : null;
          if (r.grant_type === 'refresh_token') {
            if (r.resource !== undefined && r.resource !== deps.consent.resource) {
              throw new OAuthError('invalid_target', `The only resource is ${deps.consent.resource}.`);
            }
            answer = await deps.tokens.refresh(r.refresh_token, client);
          } else {
            answer = await deps.consent.exchangeCode(client!, r);
          }
        }
        return noStore(reply).send(answer);
      } catch (err) {
        if (err instanceof OAuthError) return sendOAuthError(reply, err);
        throw err;
      }
    },
  );
}

/**
 * Native OAuth for MCP clients: dynamic registration (RFC 7591), the authorization endpoint
 * that hands the owner a review page, and token revocation (RFC 7009).
 */
export async function nativeOAuthRoutes(app: FastifyInstance, deps: OAuthDeps): Promise<void> {
  await registerRateLimit(app, {
    perMinute: deps.ratePerMinute,
    name: 'oauth-native',
    redis: deps.redis,
    who: 'from this address',
  });

  app.post(
    '/oauth/register',
    { schema: { tags: ['oauth'], summary: 'Dynamic client registration (RFC 7591)' } },
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
      const location =
        outcome.kind === 'redirect' ? outcome.location : `/console/authorize/${outcome.requestId}`;
      return reply.code(302).header('cache-control', 'no-store').header('location', location).send();
    },
  );

  app.post(
    '/oauth/revoke',
    { schema: { tags: ['oauth'], summary: 'Token revocation (RFC 7009)' } },
    async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const token = typeof body.token === 'string' ? body.token.slice(0, 512) : '';
      if (!token) return sendOAuthError(reply, new OAuthError('invalid_request', 'token is required.'));
      const basic = basicCredentials(req.headers.authorization);
      const id = basic?.id ?? (typeof body.client_id === 'string' ? body.client_id : undefined);
      const given =
        basic?.secret ?? (typeof body.client_secret === 'string' ? body.client_secret : undefined);
      try {
        const client = id ? await deps.clients.authenticate(id, given) : null;
        await deps.consent.revokeToken(token, client);
      } catch (err) {
        if (err instanceof OAuthError) return sendOAuthError(reply, err);
        throw err;
      }
      // 200 whether or not the token existed (§2.2): a caller learns nothing about other tokens.
      return noStore(reply).code(200).send({});
    },
  );
}
