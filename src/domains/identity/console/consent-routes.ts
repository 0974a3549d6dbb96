import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError } from '../../../kernel/errors.ts';
import { seeOther, sendPage, sessionToken } from '../../../web/console/context.ts';
import { consentCsp } from '../../../web/console/csp.ts';
import { parseForm, tokenOnlyForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import type { ConsentRequest } from '../credentials/oauth-request.ts';
import { consentCookieName } from '../http/consent-cookie.ts';
import type { ConsoleOwner } from '../owners.ts';
import { connectionsPage, requestClosedPage, reviewPage } from './consent-views.ts';
import type { ConsoleContext } from './context.ts';

const hidden = { schema: { hide: true } };
const REQUEST_ID = /^orq_[0-9A-Z]{26}$/;
const GRANT_ID = /^grt_[0-9A-Z]{26}$/;

const decisionForm = z
  .object({
    csrf: z.string().max(200).optional(),
    decision: z
      .string('Press Allow or Decline.')
      .regex(/^(allow|decline|extend:agt_[0-9A-Z]{26})$/, 'Press Allow or Decline.'),
  })
  .strict();

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  revoked: 'Revoked. The application’s tokens stopped working and its identity was revoked.',
};

/**
 * Native OAuth in the console: the review page `GET /oauth/authorize` sends the browser to,
 * the owner's decision, and the list of connections with revocation.
 */
export function oauthConsoleRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const param = (req: FastifyRequest, name: 'request_id' | 'grant_id', shape: RegExp) => {
    const id = (req.params as Record<string, string>)[name] ?? '';
    if (!shape.test(id)) {
      throw new DomainError(
        'NOT_FOUND',
        name === 'request_id' ? 'No such authorization request.' : 'No such connection of yours.',
      );
    }
    return id;
  };

  /** The browser's binding to the request it started at /oauth/authorize (its HttpOnly cookie). */
  const binding = (req: FastifyRequest) => req.cookies[consentCookieName(ctx.baseUrl)];

  /** The page for a request that is no longer pending: 410 once expired, 409 once decided. */
  const closed = (req: FastifyRequest, reply: FastifyReply, owner: ConsoleOwner, request: ConsentRequest) =>
    sendPage(
      reply,
      request.status === 'EXPIRED' ? 410 : 409,
      requestClosedPage({ owner, csrf: sessionToken(ctx, req), request }),
    );

  app.get('/console/authorize/:request_id', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const request = await ctx.oauth.review(owner.id, param(req, 'request_id', REQUEST_ID), binding(req));
    if (request.status !== 'PENDING') return closed(req, reply, owner, request);
    reply.header('content-security-policy', consentCsp(request.redirect_uri));
    return sendPage(reply, 200, reviewPage({ owner, csrf: sessionToken(ctx, req), request }));
  });

  app.post('/console/authorize/:request_id', hidden, async (req, reply) => {
    const id = param(req, 'request_id', REQUEST_ID);
    const owner = guardPost(ctx, req, reply, `/console/authorize/${id}`);
    if (!owner) return reply;
    const request = await ctx.oauth.review(owner.id, id, binding(req));
    if (request.status !== 'PENDING') return closed(req, reply, owner, request);
    reply.header('content-security-policy', consentCsp(request.redirect_uri));
    const form = parseForm(decisionForm, req.body);
    if (!form.ok) {
      const csrf = sessionToken(ctx, req);
      return sendPage(reply, 422, reviewPage({ owner, csrf, request, error: form.message }));
    }
    try {
      const { decision } = form.data;
      const extend = decision.startsWith('extend:') ? decision.slice('extend:'.length) : undefined;
      const allow = decision !== 'decline';
      const { redirect_to } = await ctx.oauth.decide(owner.id, id, allow, binding(req), extend);
      return seeOther(reply, redirect_to);
    } catch (err) {
      // Someone decided (or the request expired) between the look-up and the decision.
      if (!(err instanceof DomainError) || (err.code !== 'CONFLICT' && err.code !== 'NOT_FOUND')) throw err;
      const now = await ctx.oauth.review(owner.id, id, binding(req));
      if (now.status === 'PENDING') throw err;
      return closed(req, reply, owner, now);
    }
  });

  app.get('/console/connections', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const connections = await ctx.oauth.connections(owner.id);
    const flash = DONE[String((req.query as Record<string, unknown>)?.done ?? '')];
    return sendPage(reply, 200, connectionsPage({ owner, csrf: sessionToken(ctx, req), connections, flash }));
  });

  app.post('/console/connections/:grant_id/revoke', hidden, async (req, reply) => {
    const grantId = param(req, 'grant_id', GRANT_ID);
    const owner = guardPost(ctx, req, reply, '/console/connections');
    if (!owner) return reply;
    const form = parseForm(tokenOnlyForm, req.body);
    if (!form.ok) throw new DomainError('VALIDATION_FAILED', form.message);
    await ctx.oauth.revokeConnection(owner.id, grantId);
    return seeOther(reply, '/console/connections?done=revoked');
  });
}
