import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import type { ConsoleOwner } from '../../../web/console/context.ts';
import { seeOther } from '../../../web/console/context.ts';
import { formValues, parseForm } from '../../../web/console/fields.ts';
import { gatedPage } from '../../../web/console/gated-page.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { type CasesPageView, casesPage } from './case-views.ts';
import type { ConsoleContext } from './context.ts';
import { REVIEWERS_ONLY } from './gates.ts';

/**
 * The Arena reviewers' page (docs/arena.md, "Reports and appeals"): the open cases and the form
 * that decides one. Thin, like every console route: check the session (and the CSRF token on
 * posts), parse the form, call ArenaReviewService, render or redirect. An owner who is not a
 * reviewer gets a page saying so (403, from ARENA_NOT_REVIEWER).
 */

const hidden = { schema: { hide: true } };
const PAGE = 50;
const PATH = '/console/arena/cases';
const CASE_ID = idOf('case', 'case');
const AFTER = z.string().regex(/^case_[0-9A-Za-z]{1,64}$/);
const csrf = z.string().max(200).optional();

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  decided: 'Decided. The filer reads the outcome and your reasons in arena_reports and may appeal once.',
};

const decisionForm = z
  .object({
    csrf,
    outcome: z.enum(['UPHELD', 'DISMISSED'], 'Choose UPHELD or DISMISSED.'),
    reasons: z
      .string({ message: 'Write the reasons: the filer reads them.' })
      .transform((s) => s.replace(/\r\n?/g, '\n').trim())
      .pipe(
        z
          .string()
          .min(1, 'Write the reasons: the filer reads them.')
          .max(8_000, 'The reasons must be at most 8000 characters.'),
      ),
  })
  .strict();

type Query = Record<string, unknown>;
const queryOf = (req: FastifyRequest) => (req.query ?? {}) as Query;

function caseIdOf(req: FastifyRequest): string {
  const parsed = CASE_ID.safeParse((req.params as Record<string, unknown>).case_id);
  if (!parsed.success) throw new DomainError('NOT_FOUND', 'No such case.');
  return parsed.data;
}

export function arenaCaseRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  /** The open cases, as asked for or again with a problem; the not-a-reviewer page otherwise. */
  const showCases = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    code: number,
    extra: Pick<CasesPageView, 'flash' | 'error' | 'typed'> = {},
  ) => {
    const parsed = AFTER.safeParse(queryOf(req).after);
    const after = parsed.success ? parsed.data : undefined;
    return gatedPage(ctx, req, reply, owner, code, REVIEWERS_ONLY, async (csrf) => {
      const queue = await ctx.arenaReview.queue(owner.id, { limit: PAGE, after });
      return casesPage({ owner, csrf, queue, after, ...extra });
    });
  };

  app.get(PATH, hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showCases(req, reply, owner, 200, { flash: DONE[String(queryOf(req).done ?? '')] });
  });

  app.post(`${PATH}/:case_id/decision`, hidden, async (req, reply) => {
    const caseId = caseIdOf(req);
    const owner = guardPost(ctx, req, reply, PATH);
    if (!owner) return reply;
    const values = formValues(req.body, 8_000);
    const typed = { caseId, outcome: values.outcome ?? '', reasons: values.reasons ?? '' };
    const form = parseForm(decisionForm, req.body);
    if (!form.ok) return showCases(req, reply, owner, 422, { error: form.message, typed });
    try {
      await ctx.arenaReview.decide(owner.id, caseId, {
        outcome: form.data.outcome,
        reasons: form.data.reasons,
      });
      return seeOther(reply, `${PATH}?done=decided`);
    } catch (err) {
      if (!(err instanceof DomainError) || err.code === 'NOT_FOUND') throw err;
      // Not a reviewer: showCases answers with the reviewers-only page (403).
      return showCases(req, reply, owner, httpStatusOf(err.code), { error: err.message, typed });
    }
  });
}
