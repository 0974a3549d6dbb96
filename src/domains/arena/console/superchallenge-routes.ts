import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import type { ConsoleOwner } from '../../../web/console/context.ts';
import { seeOther } from '../../../web/console/context.ts';
import { formValues, parseForm } from '../../../web/console/fields.ts';
import { gatedPage } from '../../../web/console/gated-page.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import { idOf } from '../../../web/console/id-params.ts';
import type { ConsoleContext } from './context.ts';
import { REVIEWERS_ONLY } from './gates.ts';
import {
  SUPERCHALLENGES_PATH as PATH,
  type SuperchallengesPageView,
  superchallengesPage,
} from './superchallenge-views.ts';

/**
 * The Arena reviewers' superchallenge page (docs/arena.md, "Superchallenges"): the queue and the
 * form that approves or rejects one. Thin, like every console route: check the session (and the
 * CSRF token on posts), parse the form, call SuperchallengeReviewService, render or redirect. An
 * owner who is not a reviewer gets a page saying so (403, from ARENA_NOT_REVIEWER).
 */

const hidden = { schema: { hide: true } };
const PAGE = 25;
const SCH_ID = idOf('sch', 'superchallenge');
const CURSOR = z.string().min(1).max(512);
const csrf = z.string().max(200).optional();

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  approved: 'Approved. It is an assignable challenge version now; the proposer reads your reasons.',
  rejected: 'Rejected. It stays unassignable and its id stays taken; the proposer reads your reasons.',
};

const decisionForm = z
  .object({
    csrf,
    outcome: z.enum(['APPROVED', 'REJECTED'], 'Choose APPROVED or REJECTED.'),
    reasons: z
      .string({ message: 'Write the reasons: the proposer reads them.' })
      .transform((s) => s.replace(/\r\n?/g, '\n').trim())
      .pipe(
        z
          .string()
          .min(1, 'Write the reasons: the proposer reads them.')
          .max(8_000, 'The reasons must be at most 8000 characters.'),
      ),
  })
  .strict();

const queryOf = (req: FastifyRequest) => (req.query ?? {}) as Record<string, unknown>;

function idFrom(req: FastifyRequest): string {
  const parsed = SCH_ID.safeParse((req.params as Record<string, unknown>).superchallenge_id);
  if (!parsed.success) throw new DomainError('NOT_FOUND', 'No such superchallenge.');
  return parsed.data;
}

export function arenaSuperchallengeRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  /** The queue, as asked for or again with a problem; the not-a-reviewer page otherwise. */
  const show = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    code: number,
    extra: Pick<SuperchallengesPageView, 'flash' | 'error' | 'typed'> = {},
  ) => {
    const parsed = CURSOR.safeParse(queryOf(req).cursor);
    const cursor = parsed.success ? parsed.data : undefined;
    return gatedPage(ctx, req, reply, owner, code, REVIEWERS_ONLY, async (csrf) => {
      const queue = await ctx.arenaSuperchallenges.queue(owner.id, { limit: PAGE, cursor });
      return superchallengesPage({ owner, csrf, queue, later: cursor !== undefined, ...extra });
    });
  };

  app.get(PATH, hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return show(req, reply, owner, 200, { flash: DONE[String(queryOf(req).done ?? '')] });
  });

  app.post(`${PATH}/:superchallenge_id/decision`, hidden, async (req, reply) => {
    const id = idFrom(req);
    const owner = guardPost(ctx, req, reply, PATH);
    if (!owner) return reply;
    const values = formValues(req.body, 8_000);
    const typed = { id, outcome: values.outcome ?? '', reasons: values.reasons ?? '' };
    const form = parseForm(decisionForm, req.body);
    if (!form.ok) return show(req, reply, owner, 422, { error: form.message, typed });
    try {
      await ctx.arenaSuperchallenges.decide(owner.id, id, form.data);
      return seeOther(reply, `${PATH}?done=${form.data.outcome === 'APPROVED' ? 'approved' : 'rejected'}`);
    } catch (err) {
      if (!(err instanceof DomainError) || err.code === 'NOT_FOUND') throw err;
      // Not a reviewer: show answers with the reviewers-only page (403).
      return show(req, reply, owner, httpStatusOf(err.code), { error: err.message, typed });
    }
  });
}
