import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import type { ConsoleOwner } from '../../../web/console/context.ts';
import { seeOther, sendPage, sessionToken } from '../../../web/console/context.ts';
import { parseForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import { idOf } from '../../../web/console/id-params.ts';
import type { ConsoleContext } from './context.ts';
import { REQUEST_FILTERS, type RequestFilter, requestDecisionForm } from './forms.ts';
import { type Back, type RequestListView, requestListPage, requestPage } from './views.ts';

/**
 * Matching requests for their owners (docs/matching.md): the list (all, your turn, open), one
 * request, and the owner's decision on it. Thin, like every console route: the session (and
 * CSRF token on posts), the form, one MatchingOwnerService method (the same ones
 * `/v1/matching/requests…` calls), then render or redirect. Consent lives on the identity's page
 * and a campaign's call on the campaign's page (agent-part.ts, campaign-part.ts), since
 * their refusals are shown there. Another owner's request is the console's not-found page.
 */

const hidden = { schema: { hide: true } };
const PAGE = 50;
const REQUEST_ID = idOf('mreq', 'matching request');

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  joined: 'Accepted. The agent joined the campaign as a participant.',
  accepted: 'Accepted. The joining agent’s owner decides next; the agent joins once they approve.',
  guest:
    'Accepted as a guest. Your agent now pairs a guest identity bound to this campaign alone (matching_get tells it how); approve its code under Pair an agent, and the guest joins then.',
  declined:
    'Declined. The request stopped, and with it every open request between this agent and this campaign.',
};

/** The next move after a refusal, in words for the person at the console (the message says what). */
const NEXT_MOVE: Record<string, string> = {
  MATCHING_NOT_YOUR_TURN: 'Nothing was decided. The request shows whose turn it is.',
  MATCHING_REQUEST_ENDED: 'Nothing was decided: nothing more happens to an ended request.',
  CAMPAIGN_CLOSED: 'A closed campaign takes no one in.',
  CAMPAIGN_STOPPING: 'A stopping campaign takes no one in; resume it on its page first.',
};

type Query = Record<string, unknown>;
const queryOf = (req: FastifyRequest) => (req.query ?? {}) as Query;
const filterOf = (value: unknown): RequestFilter | undefined => REQUEST_FILTERS.find((f) => f === value);

/** A path id of the expected kind; anything else is the console's not-found page. */
function requestIdOf(req: FastifyRequest): string {
  const parsed = REQUEST_ID.safeParse((req.params as Record<string, unknown>).matching_request_id);
  if (!parsed.success) throw new DomainError('NOT_FOUND', 'No such matching request.');
  return parsed.data;
}

export function matchingRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const matching = ctx.matching;

  /** The list under one filter, as asked for or again with a refusal. */
  const showList = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    status: number,
    extra: Pick<RequestListView, 'state' | 'flash' | 'decided' | 'error'>,
  ) => {
    const q = queryOf(req);
    const before = REQUEST_ID.safeParse(q.before).data;
    const requests = await matching.listRequests(owner.id, { state: extra.state, limit: PAGE, before });
    const view = { owner, csrf: sessionToken(ctx, req), requests, before, ...extra };
    return sendPage(reply, status, requestListPage(view));
  };

  const showRequest = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    status: number,
    extra: { flash?: string | undefined; error?: string },
  ) => {
    const request = await matching.getRequest(owner.id, requestIdOf(req));
    return sendPage(reply, status, requestPage({ owner, csrf: sessionToken(ctx, req), request, ...extra }));
  };

  app.get('/console/matching', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const q = queryOf(req);
    const decided = REQUEST_ID.safeParse(q.request).data;
    return showList(req, reply, owner, 200, {
      state: filterOf(q.state),
      flash: DONE[String(q.done ?? '')],
      decided,
    });
  });

  app.get('/console/matching/:matching_request_id', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showRequest(req, reply, owner, 200, { flash: DONE[String(queryOf(req).done ?? '')] });
  });

  /**
   * Accept or Decline, from the list or the request's page; back to that page with the outcome,
   * or the refusal shown on it (out of turn, ended, closed). The request is re-read to render
   * either way, so another owner's request answers 404.
   */
  app.post('/console/matching/:matching_request_id/decision', hidden, async (req, reply) => {
    const id = requestIdOf(req);
    const owner = guardPost(ctx, req, reply, `/console/matching/${id}`);
    if (!owner) return reply;
    const form = parseForm(requestDecisionForm, req.body);
    const back: Back = form.ok ? (form.data.back ?? 'detail') : 'detail';
    const again = (status: number, error: string) =>
      back === 'detail'
        ? showRequest(req, reply, owner, status, { error })
        : showList(req, reply, owner, status, { state: filterOf(back), error });
    if (!form.ok) return again(422, form.message);
    try {
      const accept = form.data.decision === 'accept';
      const joinAs = form.data.join_as ?? 'SELF';
      const decided = await matching.decide(owner.id, id, accept ? 'ACCEPT' : 'DECLINE', joinAs);
      const done = !accept
        ? 'declined'
        : decided.state === 'JOINED'
          ? 'joined'
          : decided.waiting_for === 'GUEST_PAIRING'
            ? 'guest'
            : 'accepted';
      const filter = filterOf(back);
      return seeOther(
        reply,
        back === 'detail'
          ? `/console/matching/${id}?done=${done}`
          : `/console/matching?${filter ? `state=${filter}&` : ''}done=${done}&request=${id}`,
      );
    } catch (err) {
      if (!(err instanceof DomainError) || err.code === 'NOT_FOUND') throw err;
      const next = NEXT_MOVE[err.code];
      return again(httpStatusOf(err.code), next ? `${err.message} ${next}` : err.message);
    }
  });
}
