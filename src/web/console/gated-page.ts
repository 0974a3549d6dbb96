import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, httpStatusOf } from '../../kernel/errors.ts';
import type { ConsoleOwner } from './context.ts';
import { sendPage, sessionToken, type WebContext } from './context.ts';
import type { SafeHtml } from './html.ts';
import { messagePage } from './layout.ts';

/** Who a page is for, and what anyone else is told instead (with the refusal's status). */
export interface Gate {
  /** The error code the service refuses an outsider with (the Arena's reviewers only, the operator only). */
  refusal: string;
  title: string;
  message: string;
}

/**
 * A page only some owners see (reviewers' queues, the operator's settings): rendered by
 * `render` when the service lets the owner in, or, when it refuses with the gate's code, a page
 * saying whose it is, at the refusal's status. Any other error goes on to the error handler.
 */
export async function gatedPage(
  ctx: WebContext,
  req: FastifyRequest,
  reply: FastifyReply,
  owner: ConsoleOwner,
  code: number,
  gate: Gate,
  render: (csrf: string) => Promise<SafeHtml>,
) {
  const csrf = sessionToken(ctx, req);
  try {
    return sendPage(reply, code, await render(csrf));
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== gate.refusal) throw err;
    const page = messagePage({ title: gate.title, message: gate.message, owner, csrf });
    return sendPage(reply, httpStatusOf(err.code), page);
  }
}
