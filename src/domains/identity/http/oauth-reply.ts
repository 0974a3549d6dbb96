import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../../../kernel/oauth-error.ts';
import type { ClientAuthMethod } from '../credentials/oauth-clients.ts';
import type { SecretGuard } from '../credentials/secret-guard.ts';

/** What every OAuth route shares: OAuth-shaped errors, no-store answers, client credentials. */

/**
 * Who the client says it is, its secret, and how it presented them. RFC 6749 §2.3: a client uses
 * one authentication method a request, so HTTP Basic together with a body secret is refused, and
 * a Basic header that cannot be read is a failed client authentication.
 */
export function clientCredentials(
  authorization: string | undefined,
  bodyId: string | undefined,
  bodySecret: string | undefined,
): { id: string | undefined; secret: string | undefined; method: ClientAuthMethod } {
  if (/^Basic(\s|$)/i.test(authorization ?? '')) {
    const basic = basicCredentials(authorization);
    if (!basic) throw new OAuthError('invalid_client', 'The HTTP Basic credentials cannot be read.');
    if (bodySecret !== undefined) {
      throw new OAuthError(
        'invalid_request',
        'Use one client authentication method: HTTP Basic or client_secret in the body, not both.',
      );
    }
    if (bodyId !== undefined && bodyId !== basic.id) {
      throw new OAuthError('invalid_request', 'client_id in the body differs from the one in HTTP Basic.');
    }
    return { id: basic.id, secret: basic.secret, method: 'client_secret_basic' };
  }
  if (bodySecret !== undefined) return { id: bodyId, secret: bodySecret, method: 'client_secret_post' };
  return { id: bodyId, secret: undefined, method: 'none' };
}

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1: form-encoded id and secret), if readable. */
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

/**
 * A body the parser could not read (bad JSON, wrong media type, too large) is answered in
 * OAuth's shape, which is what OAuth clients read; anything else goes to the app's handler.
 */
export function installOAuthErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, _req, reply) => {
    const status = err.statusCode ?? 500;
    if (status === 400 || status === 413 || status === 415) {
      return sendOAuthError(reply, new OAuthError('invalid_request', err.message.slice(0, 300)));
    }
    throw err;
  });
}

/** OAuth answers are never cached (RFC 6749 §5.1). */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

export function sendOAuthError(
  reply: FastifyReply,
  err: OAuthError,
  detail?: unknown,
  authorization?: string,
) {
  // RFC 6749 §5.2: a failed HTTP Basic client authentication is answered with its challenge.
  if (err.error === 'invalid_client' && /^Basic\s/i.test(authorization ?? '')) {
    reply.header('www-authenticate', 'Basic realm="cairn", charset="UTF-8"');
  }
  // RFC 6750 §3: a refused bearer is answered with its challenge.
  if (err.error === 'invalid_token')
    reply.header('www-authenticate', 'Bearer realm="cairn", error="invalid_token"');
  if (err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds));
  return noStore(reply)
    .code(err.httpStatus)
    .send({ error: err.error, error_description: err.description, ...(detail ? { detail } : {}) });
}

/**
 * Runs a request that presents a secret (a client secret or a bootstrap token) under the
 * guessing guard: refused at once while its client id or address is locked out; a failed
 * client authentication is counted, logged at warn (never the secret), and answered 429 once it
 * locks. A request with no secret (device polls, public clients) guesses nothing and costs no
 * lookup.
 */
export async function guarded<T>(
  secrets: SecretGuard,
  presented: { id: string | undefined; secret: string | undefined },
  req: FastifyRequest,
  work: () => Promise<T>,
): Promise<T> {
  if (presented.secret === undefined) return work();
  const clientId = presented.id;
  await secrets.check(clientId, req.ip);
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof OAuthError) || err.error !== 'invalid_client') throw err;
    const locked = await secrets.failed(clientId, req.ip);
    req.log.warn(
      { client_id: clientId?.slice(0, 100) ?? null, address: req.ip, locked: locked !== null },
      'failed client authentication',
    );
    throw locked ?? err;
  }
}
