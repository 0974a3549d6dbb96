import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticated, IdentityService } from '../../domains/identity/index.ts';
import { whenClientGone } from '../../web/http/client-gone.ts';
import { sendError } from '../../web/http/error-handler.ts';
import { bearerToken } from './auth.ts';
import { openEventStream } from './event-stream.ts';
import { LISTEN_LIMITS, type ListenHub } from './listen-hub.ts';
import { answerModern } from './modern.ts';
import { type ModernAnswer, error as modernError } from './modern-answer.ts';
import { checkModernRequest, isRecord, isRefusal, RPC } from './modern-request.ts';
import type { McpDeps } from './surface.ts';

/** 2026-07-28 has no GET stream and no session to DELETE: the endpoint takes POST only. */
export function postOnly(reply: FastifyReply, baseUrl: string) {
  reply.header('allow', 'POST');
  return sendError(
    reply,
    baseUrl,
    'METHOD_NOT_ALLOWED',
    'MCP 2026-07-28 has no sessions and no standalone stream: send each request as a POST.',
    {},
    { next: 'POST each request to /mcp; to be told of changes, POST subscriptions/listen.' },
  );
}

/**
 * One request of the 2026-07-28 revision: its envelope checked (modern-request.ts), then
 * answered statelessly (modern.ts), or, for subscriptions/listen, held open as a stream.
 */
export async function serveModern(
  req: FastifyRequest,
  reply: FastifyReply,
  auth: Authenticated,
  deps: McpDeps & { identity: IdentityService },
  listens: ListenHub,
) {
  const checked = checkModernRequest(req);
  if (checked === 'notification') return reply.code(202).send();
  if (isRefusal(checked)) {
    return sendModern(
      reply,
      modernError(checked.status, checked.id, checked.code, checked.message, checked.data),
    );
  }
  if (checked.method === 'subscriptions/listen') {
    const listen = listenFilter(checked.params.notifications);
    if (typeof listen === 'string') {
      return sendModern(reply, modernError(400, checked.id, RPC.invalidParams, listen));
    }
    openEventStream(req, reply);
    await listens.open(auth.caller, bearerToken(req), checked.id, listen.filter, listen.uris, reply);
    return reply;
  }
  const takeInbox = auth.ownerMessagesWaiting ? () => deps.identity.takeInbox(auth.caller.agent.id) : null;
  const gone = whenClientGone(req);
  try {
    const answer = await answerModern(checked, {
      caller: auth.caller,
      deps,
      requestId: req.id,
      takeInbox,
      log: req.log,
      gone: gone.signal,
    });
    return sendModern(reply, answer);
  } finally {
    gone.release();
  }
}

function sendModern(reply: FastifyReply, answer: ModernAnswer) {
  return reply.code(answer.status).type('application/json').send(JSON.stringify(answer.message));
}

/** A listen's filter and the URIs it would follow, or why the request cannot be a listen. */
function listenFilter(filter: unknown): { filter: Record<string, unknown>; uris: string[] } | string {
  if (!isRecord(filter)) {
    return 'Invalid params: subscriptions/listen needs params.notifications, an object such as {"toolsListChanged": true}.';
  }
  const uris = filter.resourceSubscriptions ?? [];
  if (!isUriList(uris)) {
    return `Invalid params: notifications.resourceSubscriptions must be a list of at most ${LISTEN_LIMITS.resourceSubscriptions} URIs (each at most 2,000 characters); resources/templates/list names what can be followed.`;
  }
  return { filter, uris };
}

function isUriList(value: unknown): value is string[] {
  return (
    Array.isArray(value) &&
    value.length <= LISTEN_LIMITS.resourceSubscriptions &&
    value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= 2_000)
  );
}
