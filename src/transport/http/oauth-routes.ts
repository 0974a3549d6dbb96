import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { type DeviceService, deviceRequestSchema, type TokenService } from '../../domains/identity/index.ts';
import { OAuthError } from '../../kernel/oauth-error.ts';
import { registerRateLimit } from './rate-limit.ts';

export interface OAuthDeps {
  device: DeviceService;
  tokens: TokenService;
  ratePerMinute: number;
  redis: Redis | null;
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const secret = z.string().min(1).max(512);

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
    client_id: z.string().max(200).optional(),
  }),
]);

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
      if (grant !== DEVICE_GRANT && grant !== 'client_credentials' && grant !== 'refresh_token') {
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
        const answer =
          r.grant_type === DEVICE_GRANT
            ? await deps.device.poll(r.device_code)
            : r.grant_type === 'client_credentials'
              ? await deps.tokens.exchangeBootstrap(r.client_secret)
              : await deps.tokens.refresh(r.refresh_token);
        return noStore(reply).send(answer);
      } catch (err) {
        if (err instanceof OAuthError) return sendOAuthError(reply, err);
        throw err;
      }
    },
  );
}
