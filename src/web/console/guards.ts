import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleOwner } from './context.ts';
import { safeNext, seeOther, sendPage, sessionTokenValid, signInUrl, type WebContext } from './context.ts';
import { messagePage } from './layout.ts';

/**
 * The signed-in owner of a page request; otherwise the browser is sent to sign in and brought
 * back here afterwards (null: the reply is already sent).
 */
export function requireOwner(req: FastifyRequest, reply: FastifyReply): ConsoleOwner | null {
  if (req.owner) return req.owner;
  void seeOther(reply, signInUrl(safeNext(req.url)));
  return null;
}

/**
 * The signed-in owner of a form post whose CSRF token matches the session. Without a session
 * the browser goes to sign in (back to `returnTo` afterwards); with a missing or wrong token the
 * answer is 403 and nothing is done (null: the reply is already sent).
 */
export function guardPost(
  ctx: WebContext,
  req: FastifyRequest,
  reply: FastifyReply,
  returnTo: string | null = null,
): ConsoleOwner | null {
  if (!req.owner) {
    void seeOther(reply, signInUrl(safeNext(returnTo)));
    return null;
  }
  if (!sessionTokenValid(ctx, req)) {
    void sendPage(
      reply,
      403,
      messagePage({
        title: 'Request refused',
        message:
          'This form did not carry a valid security token (it may be from an old page, or from another site), so nothing was changed. Go back, reload the page and try again.',
        owner: req.owner,
        csrf: ctx.csrf.forSession(req.ownerSessionId ?? ''),
      }),
    );
    return null;
  }
  return req.owner;
}
