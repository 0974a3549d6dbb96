import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import type { ConsoleOwner } from '../../../web/console/context.ts';
import { seeOther } from '../../../web/console/context.ts';
import { formValues, parseForm } from '../../../web/console/fields.ts';
import { type Gate, gatedPage } from '../../../web/console/gated-page.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import type { ConsoleContext } from './context.ts';
import { type ReviewersPageView, reviewersPage } from './reviewer-views.ts';

/**
 * The operator's console setting for Arena reviewers (docs/arena.md, "Reviewers"), beside the
 * CLI's `cairn owner reviewer` and `cairn owner add --reviewer`. Thin: check the session (and
 * the CSRF token on posts), parse the form, call the identity service, render or redirect. An
 * owner who does not operate this Cairn gets a page saying whom to ask (403, OPERATOR_REQUIRED).
 */

const hidden = { schema: { hide: true } };
const OPERATOR_ONLY: Gate = {
  refusal: 'OPERATOR_REQUIRED',
  title: 'For the operator',
  message:
    'Only the operator of this Cairn names Arena reviewers. Ask them to name you if you should review.',
};
const PATH = '/console/arena/reviewers';

const DONE: Record<string, string> = {
  named: 'Saved: the account is a reviewer now and sees the Arena cases.',
  unnamed: 'Saved: the account is no longer a reviewer.',
};

const reviewerForm = z
  .object({
    csrf: z.string().max(200).optional(),
    email: z.string().trim().email('Enter the sign-in email of an owner account.').max(254),
    enabled: z.enum(['true', 'false'], 'Choose whether the account reviews.'),
  })
  .strict();

export function arenaReviewerRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const show = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    code: number,
    extra: Pick<ReviewersPageView, 'flash' | 'error' | 'typed'> = {},
  ) => {
    return gatedPage(ctx, req, reply, owner, code, OPERATOR_ONLY, async (csrf) => {
      const { reviewers } = await ctx.operators.arenaReviewers(owner.id);
      return reviewersPage({ owner, csrf, reviewers, ...extra });
    });
  };

  app.get(PATH, hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const done = String(((req.query ?? {}) as Record<string, unknown>).done ?? '');
    return show(req, reply, owner, 200, { flash: DONE[done] });
  });

  app.post(PATH, hidden, async (req, reply) => {
    const owner = guardPost(ctx, req, reply, PATH);
    if (!owner) return reply;
    const values = formValues(req.body, 300);
    const typed = { email: values.email ?? '', enabled: values.enabled ?? 'true' };
    const form = parseForm(reviewerForm, req.body);
    if (!form.ok) return show(req, reply, owner, 422, { error: form.message, typed });
    try {
      const on = form.data.enabled === 'true';
      await ctx.operators.setArenaReviewer(owner.id, form.data.email, on);
      return seeOther(reply, `${PATH}?done=${on ? 'named' : 'unnamed'}`);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      // Not an operator: show answers with the operator-only page (403).
      return show(req, reply, owner, httpStatusOf(err.code), { error: err.message, typed });
    }
  });
}
