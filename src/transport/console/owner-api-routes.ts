import type { FastifyError, FastifyInstance } from 'fastify';
import { AREAS } from '../../domains/catalog.ts';
import type { Area, OwnerOf, OwnerOperation } from '../../framework/index.ts';
import { DomainError } from '../../kernel/errors.ts';
import { bearerOf, sendOwnerError } from '../../web/console/owner-errors.ts';
import { codeForStatus, sendValidationFailure } from '../../web/http/error-handler.ts';
import { type BodyDecoder, installLargeBodies } from '../../web/http/large-body.ts';
import { answers } from '../../web/http/openapi.ts';
import type { DoorContextOfAll as ConsoleContext } from '../door-context.ts';

/** Whether a Content-Type header names application/json (parameters such as charset allowed). */
function isJson(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * The native-OAuth operations for a person signed in to the console (SPEC Authentication 3):
 * `/v1/oauth/requests/{id}`, its decision, and the owner's connections. They answer JSON with
 * the Cairn error envelope, never the console's HTML pages, so this is a plugin of its own with
 * its own hooks and error handler; it reads the same session cookie the console does, or an
 * owner API token (`Authorization: Bearer cd_own_…`) for scripts.
 *
 * No CSRF token here, and none is needed: the session cookie is SameSite=Lax, so browsers do
 * not send it on cross-site POSTs at all; and every POST must be `Content-Type:
 * application/json`, which no HTML form can send and which a script on another origin can send
 * only after a CORS preflight that this server never grants (no CORS is enabled). A same-site
 * page (another port or subdomain) therefore cannot forge a decision either.
 */
export async function ownerApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  bodies: BodyDecoder,
): Promise<void> {
  // A worker's own MCP credential (cd_acc_, cd_prj_), on the few routes that take it.
  const agentOf = async (bearer: string) => {
    const { caller } = await ctx.identity.authenticate(bearer);
    return { agentId: caller.agent.id, ownerId: caller.agent.ownerId };
  };
  api.addHook('onRequest', async (req, reply) => {
    reply.header('cache-control', 'no-store');
    const authorization = req.headers.authorization;
    // A skill download_url carries an identity's signed ticket instead of a session: the route
    // checks the ticket and the identity's access itself (domains/skills/download-ticket.ts).
    const ticket = (req.query as Record<string, unknown> | undefined)?.ticket;
    if (authorization === undefined && req.routeOptions.config.ticketAuth && typeof ticket === 'string')
      return;
    // The task materials export is also for the task's worker (SPEC: for the leaseholder), with
    // its own MCP credential; the route checks the lease. Nothing else here takes an agent's bearer.
    const agentBearer = authorization !== undefined ? bearerOf(authorization) : null;
    if (req.routeOptions.config.agentAuth && agentBearer && /^cd_(acc|prj)_/.test(agentBearer)) {
      const agent = await agentOf(agentBearer).catch(() => null);
      if (!agent) {
        reply.header('www-authenticate', 'Bearer realm="cairn", error="invalid_token"');
        return sendOwnerError(reply, 'UNAUTHENTICATED', 'The credential is invalid, expired or revoked.');
      }
      req.agentCaller = agent;
      return;
    }
    if (authorization !== undefined) {
      // An owner API token (cd_own_) stands for its owner. A bearer is never sent by a browser on
      // its own, so these requests need no CSRF protection; the JSON-only rule below still holds.
      const bearer = bearerOf(authorization);
      const found = bearer ? await ctx.owners.tokens.authenticate(bearer) : null;
      if (!found) {
        reply.header('www-authenticate', 'Bearer realm="cairn-owner", error="invalid_token"');
        return sendOwnerError(
          reply,
          'UNAUTHENTICATED',
          'The owner API token is invalid, expired or revoked. Send Authorization: Bearer cd_own_… with a live token from /console/tokens, or sign in to the console.',
        );
      }
      req.owner = found.owner;
      req.ownerTokenId = found.tokenId;
    } else {
      const value = req.cookies[ctx.cookieName.session];
      const session = value ? await ctx.owners.resolveSession(value) : null;
      if (!session) {
        reply.header('www-authenticate', 'Bearer realm="cairn-owner"');
        return sendOwnerError(
          reply,
          'UNAUTHENTICATED',
          'Sign in to the console first, or send Authorization: Bearer with an owner API token (cd_own_…).',
        );
      }
      req.owner = session.owner;
      req.ownerSessionId = session.sessionId;
    }
    // Checked before the body is parsed: only JSON is accepted, which is what keeps these POSTs safe.
    if (req.method === 'POST' && !isJson(req.headers['content-type'])) {
      return sendOwnerError(
        reply,
        'UNSUPPORTED_MEDIA_TYPE',
        'Send the body as JSON with Content-Type: application/json.',
      );
    }
  });

  // A file of megabytes is read in a parser thread, a few at a time per owner (issue 40 item 3).
  installLargeBodies(api, bodies, (req) => req.owner?.id ?? req.agentCaller?.ownerId ?? null);

  api.setErrorHandler((err: FastifyError, req, reply) => {
    const invalid = sendValidationFailure(err, reply);
    if (invalid) return invalid;
    if (err instanceof DomainError) return sendOwnerError(reply, err.code, err.message, err.details, err);
    const status = err.statusCode ?? 500;
    if (status < 500) return sendOwnerError(reply, codeForStatus(status), err.message);
    req.log.error({ err }, 'owner api error');
    return sendOwnerError(reply, 'INTERNAL', 'Internal error; the operator can find it by request_id.', {
      request_id: req.id,
    });
  });

  const owner = (req: { owner?: { id: string } | undefined }) => {
    if (!req.owner) throw new DomainError('UNAUTHENTICATED', 'Sign in to the console first.');
    return req.owner.id;
  };

  for (const area of AREAS as ReadonlyArray<Area>) {
    for (const op of area.doors?.ownerOperations ?? []) serveOwnerOperation(api, ctx, op, owner);
  }
}

/**
 * One owner operation as a route of this scope: its schemas validate the input (422
 * VALIDATION_FAILED otherwise) and document it in /openapi.json; the handler gets the owner and
 * the parsed input, and its answer is sent with the operation's status. A handler that sends
 * the reply itself (a download) is left to it.
 */
function serveOwnerOperation(
  api: FastifyInstance,
  ctx: ConsoleContext,
  op: OwnerOperation<object>,
  ownerOf: OwnerOf,
): void {
  const statuses = op.statusOf ? [200, 201] : [op.status ?? 200];
  api.route({
    method: op.method,
    url: op.path,
    ...(op.download ? { exposeHeadRoute: false } : {}),
    ...(op.bodyLimit ? { bodyLimit: op.bodyLimit } : {}),
    schema: {
      tags: [...op.tags],
      summary: op.summary,
      ...(op.params ? { params: op.params } : {}),
      ...(op.query ? { querystring: op.query } : {}),
      ...(op.body ? { body: op.body } : {}),
    },
    config: {
      ...answers(statuses),
      ...(op.payload ? { payload: op.payload } : {}),
      ...(op.audience === 'OWNER_OR_WORKER' ? { agentAuth: true } : {}),
      ...(op.audience === 'OWNER_OR_TICKET' ? { ticketAuth: true } : {}),
    },
    handler: async (req, reply) => {
      const input = {
        // Read only where the operation acts for an owner: a worker's or a ticket's call has none.
        get ownerId() {
          return ownerOf(req);
        },
        worker: req.agentCaller,
        by: req.ownerTokenId ? ('TOKEN' as const) : ('SESSION' as const),
        params: req.params,
        query: req.query,
        body: req.body,
      };
      const answer = await op.run(ctx, input, { req, reply });
      if (reply.sent) return reply;
      const status = op.statusOf ? op.statusOf(answer as never) : (op.status ?? 200);
      return reply.code(status).send(answer);
    },
  });
}
