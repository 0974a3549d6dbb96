import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { OAuthError } from '../../../kernel/oauth-error.ts';
import { allowAnyOrigin } from '../../../web/http/cors.ts';
import { registerRateLimit } from '../../../web/http/rate-limit.ts';
import {
  CLIENT_DOCUMENT,
  type ClientMetadataDocuments,
  isClientIdUrl,
} from '../credentials/client-metadata.ts';
import type { DeviceService } from '../credentials/device.ts';
import { deviceRequestSchema } from '../credentials/device-request.ts';
import type { OAuthClientService } from '../credentials/oauth-clients.ts';
import { DEVICE_GRANT } from '../credentials/oauth-clients.ts';
import type { OAuthConsentService } from '../credentials/oauth-consent.ts';
import type { OAuthGrantService } from '../credentials/oauth-grants.ts';
import { onlyDefaultScope, scopesKnown, UNKNOWN_SCOPE } from '../credentials/oauth-request.ts';
import type { SecretGuard } from '../credentials/secret-guard.ts';
import type { TokenService } from '../credentials/tokens.ts';
import type { IdentityService } from '../identities.ts';
import { clientCredentials, guarded, installOAuthErrors, noStore, sendOAuthError } from './oauth-reply.ts';

export interface OAuthDeps {
  device: DeviceService;
  /** Authenticates the participant's bearer on a guest pairing. */
  identity: IdentityService;
  secrets: SecretGuard;
  tokens: TokenService;
  clients: OAuthClientService;
  /** Clients that name themselves by their metadata document's URL. */
  documents: ClientMetadataDocuments;
  consent: OAuthConsentService;
  grants: OAuthGrantService;
  baseUrl: string;
  ratePerMinute: number;
  redis: Redis | null;
}

const secret = z.string().min(1).max(512);
/** A registered client's id, or a Client Identifier URL (as long as any redirect URI). */
const clientId = z.string().max(CLIENT_DOCUMENT.urlChars).optional();
const scopeParam = z.string().max(200).optional();
const resourceParam = z.string().max(2_000).optional();

const tokenRequest = z.discriminatedUnion('grant_type', [
  z.object({
    grant_type: z.literal(DEVICE_GRANT),
    device_code: secret,
    client_id: clientId,
    client_secret: secret.optional(),
    scope: scopeParam,
    resource: resourceParam,
  }),
  z.object({
    grant_type: z.literal('client_credentials'),
    // Or in HTTP Basic: the bootstrap token is the client secret.
    client_secret: secret.optional(),
    client_id: clientId,
    scope: scopeParam,
    resource: resourceParam,
  }),
  z.object({
    grant_type: z.literal('refresh_token'),
    refresh_token: secret,
    client_id: clientId,
    client_secret: secret.optional(),
    scope: scopeParam,
    resource: resourceParam,
  }),
  z.object({
    grant_type: z.literal('authorization_code'),
    code: secret,
    redirect_uri: z.string().max(2_000).optional(),
    code_verifier: z.string().max(200).optional(),
    client_id: clientId,
    client_secret: secret.optional(),
    scope: scopeParam,
    resource: resourceParam,
  }),
]);

/** RFC 8628 §3.1: scope may come with the device authorization request. */
const deviceRequest = deviceRequestSchema.extend({ scope: scopeParam });

const GRANTS = new Set([DEVICE_GRANT, 'client_credentials', 'refresh_token', 'authorization_code']);

function invalidRequest(reply: FastifyReply, issues: z.core.$ZodIssue[]) {
  const detail = issues.map((i) => ({ loc: ['body', ...i.path.map(String)], msg: i.message, type: i.code }));
  const summary = detail.map((d) => `${d.loc.slice(1).join('.') || 'body'}: ${d.msg}`).join('; ');
  return sendOAuthError(reply, new OAuthError('invalid_request', summary), detail);
}

/** The agent behind `Authorization: Bearer …` (access token or project key); invalid_token otherwise. */
async function participantOf(deps: OAuthDeps, authorization: string | undefined) {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!bearer) {
    throw new OAuthError(
      'invalid_token',
      'Guest pairing for a matching request needs Authorization: Bearer with the access token or project key of the agent that takes part in it.',
    );
  }
  try {
    return (await deps.identity.authenticate(bearer)).caller.agent;
  } catch {
    throw new OAuthError('invalid_token', 'The bearer credential is invalid, expired or revoked.');
  }
}

/**
 * `/oauth/device_authorization` and `/oauth/token`: JSON or form-encoded bodies, OAuth-shaped
 * answers and errors (RFC 6749, RFC 8628), rate limited per client address.
 */
export async function oauthRoutes(app: FastifyInstance, deps: OAuthDeps): Promise<void> {
  installOAuthErrors(app);
  allowAnyOrigin(app, ['/oauth/token', '/oauth/device_authorization'], {
    methods: ['POST'],
    headers: ['content-type', 'authorization'],
  });
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
      const parsed = deviceRequest.safeParse(req.body ?? {});
      if (!parsed.success) return invalidRequest(reply, parsed.error.issues);
      const { scope, ...request } = parsed.data;
      if (!onlyDefaultScope(scope)) {
        const why =
          'A pairing grants the scope mcp (everything the identity may do); ask for mcp or no scope. Narrower scopes come with /oauth/authorize.';
        return sendOAuthError(reply, new OAuthError('invalid_scope', why));
      }
      // A guest pairing (matching_request_id) is asked for by the request's participant, with its
      // own bearer credential; an ordinary pairing needs none and ignores one.
      try {
        const participant =
          request.matching_request_id !== undefined
            ? await participantOf(deps, req.headers.authorization)
            : undefined;
        // RFC 8628 §3.1: a registered client names itself (and authenticates, if confidential).
        const asking =
          participant === undefined
            ? clientCredentials(req.headers.authorization, request.client_id, request.client_secret)
            : { id: request.client_id, secret: request.client_secret, method: 'none' as const };
        const client = asking.id
          ? await guarded(deps.secrets, asking, req, () => deviceClient(deps, asking, true))
          : undefined;
        return noStore(reply).send(await deps.device.authorize(request, participant, client));
      } catch (err) {
        if (err instanceof OAuthError) return sendOAuthError(reply, err);
        throw err;
      }
    },
  );

  app.post(
    '/oauth/token',
    {
      schema: {
        tags: ['oauth'],
        summary: 'Token endpoint: authorization_code, refresh_token, device_code, client_credentials',
      },
    },
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
      // Before any grant is looked at, so a refused scope spends no refresh token (RFC 6749 §6).
      if (!scopesKnown(r.scope)) {
        return sendOAuthError(reply, new OAuthError('invalid_scope', UNKNOWN_SCOPE));
      }
      // RFC 8707 §2.2: every grant is for this server's /mcp, and every token records it.
      if (r.resource !== undefined && r.resource !== deps.consent.resource) {
        return sendOAuthError(
          reply,
          new OAuthError('invalid_target', `The only resource is ${deps.consent.resource}.`),
        );
      }
      try {
        const presented = clientCredentials(
          req.headers.authorization,
          r.client_id,
          'client_secret' in r ? r.client_secret : undefined,
        );
        const answer = await guarded(deps.secrets, presented, req, () => grantTokens(deps, r, presented));
        return noStore(reply).send(answer);
      } catch (err) {
        if (err instanceof OAuthError)
          return sendOAuthError(reply, err, undefined, req.headers.authorization);
        throw err;
      }
    },
  );
}

type TokenRequest = z.infer<typeof tokenRequest>;

/**
 * A client_id that names a client of record: registered here (`cli_`), or known by its metadata
 * document's URL. Any other client_id of a device flow or refresh is only a name.
 */
const isClientOfRecord = (id: string | undefined): id is string =>
  id !== undefined && (id.startsWith('cli_') || isClientIdUrl(id));

/** The registered client of a device flow, authenticated, and registered for that grant. */
async function deviceClient(deps: OAuthDeps, presented: Presented, firstContact = false) {
  // Starting a pairing is a first contact, like /oauth/authorize: a stale document is read again.
  if (firstContact && presented.id && isClientIdUrl(presented.id)) await deps.documents.client(presented.id);
  const client = await deps.clients.authenticate(presented.id, presented.secret, presented.method);
  if (!client.grantTypes.includes(DEVICE_GRANT)) {
    throw new OAuthError('unauthorized_client', `This client did not register the ${DEVICE_GRANT} grant.`);
  }
  return client;
}
type Presented = ReturnType<typeof clientCredentials>;

/** Issues what one token request asks for, or throws the OAuthError that refuses it. */
async function grantTokens(deps: OAuthDeps, r: TokenRequest, presented: Presented): Promise<unknown> {
  if (r.grant_type === DEVICE_GRANT) {
    // A registered client authenticates as it registered; any other client_id is only a name,
    // which a code issued to a client will not match.
    const client = isClientOfRecord(presented.id) ? await deviceClient(deps, presented) : undefined;
    return deps.device.poll(r.device_code, client?.id ?? presented.id);
  }
  if (r.grant_type === 'client_credentials') {
    // A registered client's own id and secret are never taken for a bootstrap token.
    if (isClientOfRecord(presented.id)) {
      await deps.clients.refuseClientCredentials(presented.id, presented.secret, presented.method);
    }
    if (!presented.secret) {
      throw new OAuthError(
        'invalid_client',
        'client_credentials takes the bootstrap token as the client secret (client_secret, or HTTP Basic).',
      );
    }
    return deps.tokens.exchangeBootstrap(presented.secret);
  }
  if (r.grant_type === 'refresh_token') {
    // Device-paired runtimes refresh without a registered client; registered ones authenticate.
    const client = isClientOfRecord(presented.id)
      ? await deps.clients.authenticate(presented.id, presented.secret, presented.method)
      : null;
    return deps.tokens.refresh(r.refresh_token, client, r.scope);
  }
  const client = await deps.clients.authenticate(presented.id, presented.secret, presented.method);
  return deps.grants.exchangeCode(client, r);
}
