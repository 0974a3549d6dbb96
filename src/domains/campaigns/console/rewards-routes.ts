import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import { base32 } from '../../../kernel/ids.ts';
import { seeOther, sendPage, sessionToken } from '../../../web/console/context.ts';
import { formValues, parseForm, tokenOnlyForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { messagePage } from '../../../web/console/layout.ts';
import { CURRENCIES, MAX_MINOR, toMinor } from '../../funds/index.ts';
import { type ConsoleOwner, IDENTITY_LIMITS } from '../../identity/index.ts';
import type { ConsoleContext } from './context.ts';
import { ownerEvidenceOf } from './owner-evidence-of.ts';
import { type ApprovalPageView, approvalPage, type CitedEvidence } from './rewards-approval-views.ts';
import { type FundPageView, fundPage, type RewardsPageView, refusal, rewardsPage } from './rewards-views.ts';

/**
 * The owner's rewards pages (docs/rewards.md): the balance, its postings and the release
 * requests waiting; one request to approve or return; one task to fund (the `fund_url` agents
 * are given); and the operator's credit form. Thin, like every console route: check the session
 * (and the CSRF token on posts), parse the form, call one service method, render or redirect.
 */

const hidden = { schema: { hide: true } };
const PAGE = 50;
const APPROVAL_ID = idOf('apr', 'release request');
const TASK_ID = idOf('task', 'task');
const csrf = z.string().max(200).optional();

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  credited: 'Credited. The owner sees it in their balance and postings now.',
  credit_replayed:
    'This credit was already made (the form was sent twice): nothing was credited a second time.',
  approved: 'Approved. The reward moved from escrow to the balance of the worker’s owner.',
  returned: 'Returned for rework. The worker reads your reason; the reward stays in escrow.',
  funded: 'Funded. The reward is in escrow and agents can claim the task now.',
  published: 'Task published. Its reward waits for funds: agents cannot claim the task until it is funded.',
};

/** The operator's credit: `reference` comes from the page, so the same form sent twice credits once. */
const creditForm = z
  .object({
    csrf,
    reference: z
      .string({ message: 'The form lost its reference: reload the page and enter the credit again.' })
      .regex(/^[\w.:-]{8,100}$/, 'The form lost its reference: reload the page and enter the credit again.'),
    owner_email: z
      .string({ message: 'Enter the owner’s email address.' })
      .trim()
      .min(1, 'Enter the owner’s email address.')
      .max(IDENTITY_LIMITS.email.maxChars, 'That email address is too long.'),
    currency: z.enum(CURRENCIES, 'Choose POINTS or USD.'),
    amount: z
      .string({ message: 'Enter the amount.' })
      .trim()
      .regex(
        /^\d{1,12}(?:\.\d{1,2})?$/,
        'Enter the amount as a number: whole points, or dollars with at most two decimals.',
      ),
    note: z
      .string()
      .trim()
      .max(500, 'The note must be at most 500 characters.')
      .optional()
      .transform((s) => s || undefined),
  })
  .strict();

const decisionForm = z
  .object({
    csrf,
    action: z.enum(['approve', 'return'], 'Press Approve or Return for rework.'),
    reason: z
      .string()
      .max(2_000, 'The reason must be at most 2000 characters.')
      .optional()
      .transform((s) => s?.replace(/\r\n?/g, '\n').trim() || undefined),
  })
  .strict()
  .refine((f) => f.action === 'approve' || f.reason, 'Write the reason for rework: the worker reads it.');

type Query = Record<string, unknown>;
const queryOf = (req: FastifyRequest) => (req.query ?? {}) as Query;
const done = (req: FastifyRequest) => DONE[String(queryOf(req).done ?? '')];

/** A path id of the expected kind; anything else is the console's not-found page. */
function pathId(req: FastifyRequest, name: string, schema: z.ZodString, what: string): string {
  const parsed = schema.safeParse((req.params as Record<string, unknown>)[name]);
  if (!parsed.success) throw new DomainError('NOT_FOUND', `No such ${what}.`);
  return parsed.data;
}

/** Minor units of a typed amount, or a message saying what is wrong with it. */
function minorOf(currency: (typeof CURRENCIES)[number], amount: string): number | string {
  // The form allows two decimals; a fraction of a point is the one thing toMinor still refuses.
  const minor = toMinor(currency, Number(amount));
  if (minor === null) return 'Points are credited in whole points.';
  if (minor <= 0) return 'The amount must be more than zero.';
  if (minor > MAX_MINOR) return 'That amount is more than one credit may be.';
  return minor;
}

export function rewardRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  /** The rewards page, as asked for or again with a problem (and the credit form as typed). */
  const showRewards = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    code: number,
    extra: Pick<RewardsPageView, 'flash' | 'error'> & { values?: Record<string, string> } = {},
  ) => {
    const q = queryOf(req);
    const cursor = typeof q.cursor === 'string' && /^[\w.-]{1,1000}$/.test(q.cursor) ? q.cursor : undefined;
    const balance = await ctx.funds.balance(owner.id);
    const pending = await ctx.ownerRewards.approvals(owner.id, { status: 'PENDING', limit: PAGE });
    const postings = await ctx.funds.postings(owner.id, { limit: PAGE, cursor });
    // A fresh reference with every rendering: one form, one credit, however often it is sent.
    const operator = (await ctx.operators.isOperator(owner.id))
      ? { reference: `console_${base32(randomBytes(16))}`, values: extra.values ?? {} }
      : null;
    const view: RewardsPageView = {
      owner,
      csrf: sessionToken(ctx, req),
      balance,
      pending,
      postings,
      cursor,
      operator,
      flash: extra.flash,
      error: extra.error,
    };
    return sendPage(reply, code, rewardsPage(view));
  };

  app.get('/console/rewards', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showRewards(req, reply, owner, 200, { flash: done(req) });
  });

  app.post('/console/rewards/credits', hidden, async (req, reply) => {
    const owner = guardPost(ctx, req, reply, '/console/rewards');
    if (!owner) return reply;
    if (!(await ctx.operators.isOperator(owner.id))) {
      const err = new DomainError('OPERATOR_REQUIRED', 'Only an operator of this Cairn credits balances.');
      const page = messagePage({
        title: 'Request refused',
        message: refusal(err),
        owner,
        csrf: sessionToken(ctx, req),
        links: [['/console/rewards', 'Back to rewards']],
      });
      return sendPage(reply, httpStatusOf(err.code), page);
    }
    const values = formValues(req.body, 600);
    const again = (code: number, error: string) => showRewards(req, reply, owner, code, { error, values });
    const form = parseForm(creditForm, req.body);
    if (!form.ok) return again(422, form.message);
    const f = form.data;
    const amount = minorOf(f.currency, f.amount);
    if (typeof amount === 'string') return again(422, amount);
    try {
      const target = await ctx.operators.ownerByEmail(f.owner_email);
      const credited = await ctx.funds.credit({
        ownerId: target.id,
        currency: f.currency,
        amount,
        actor: `owner:${owner.id}`,
        note: f.note ?? null,
        reference: f.reference,
      });
      return seeOther(reply, `/console/rewards?done=${credited.replayed ? 'credit_replayed' : 'credited'}`);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      // NOT_FOUND here is the email typed in, not this page.
      return again(err.code === 'NOT_FOUND' ? 422 : httpStatusOf(err.code), refusal(err));
    }
  });

  /** One release request, as asked for or again with a problem. Another owner's is NOT_FOUND (404). */
  const showApproval = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    code: number,
    extra: Pick<ApprovalPageView, 'flash' | 'error' | 'reason'> = {},
  ) => {
    const id = pathId(req, 'approval_id', APPROVAL_ID, 'release request');
    const approval = await ctx.ownerRewards.approval(owner.id, id);
    const find = ownerEvidenceOf(ctx, owner.id);
    const evidence: CitedEvidence[] = [];
    for (const evidenceId of approval.submission?.evidence_ids ?? []) {
      const record = await find(evidenceId);
      evidence.push({
        id: evidenceId,
        record: record ? { title: record.title, canonicalUrl: record.canonicalUrl } : null,
      });
    }
    const view: ApprovalPageView = { owner, csrf: sessionToken(ctx, req), approval, evidence, ...extra };
    return sendPage(reply, code, approvalPage(view));
  };

  app.get('/console/rewards/approvals/:approval_id', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showApproval(req, reply, owner, 200, { flash: done(req) });
  });

  app.post('/console/rewards/approvals/:approval_id/decision', hidden, async (req, reply) => {
    const id = pathId(req, 'approval_id', APPROVAL_ID, 'release request');
    const path = `/console/rewards/approvals/${id}`;
    const owner = guardPost(ctx, req, reply, path);
    if (!owner) return reply;
    const reason = formValues(req.body, 2_000).reason;
    const form = parseForm(decisionForm, req.body);
    if (!form.ok) return showApproval(req, reply, owner, 422, { error: form.message, reason });
    try {
      const decided = await ctx.ownerRewards.decide(owner.id, id, form.data);
      return seeOther(reply, `${path}?done=${decided.status === 'APPROVED' ? 'approved' : 'returned'}`);
    } catch (err) {
      // Another owner's request stays the 404 page; a decided one is said on the page.
      if (!(err instanceof DomainError) || err.code === 'NOT_FOUND') throw err;
      return showApproval(req, reply, owner, httpStatusOf(err.code), { error: refusal(err), reason });
    }
  });

  /** One task's funding page. An unknown task, another owner's, or one without a reward is NOT_FOUND (404). */
  const showFund = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    code: number,
    extra: Pick<FundPageView, 'flash' | 'error'> = {},
  ) => {
    const taskId = pathId(req, 'task_id', TASK_ID, 'task');
    const funding = await ctx.ownerRewards.funding(owner.id, taskId);
    const howToAdd = ctx.funds.provider.howToAdd();
    const view: FundPageView = { owner, csrf: sessionToken(ctx, req), funding, howToAdd, ...extra };
    return sendPage(reply, code, fundPage(view));
  };

  app.get('/console/rewards/fund/:task_id', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showFund(req, reply, owner, 200, { flash: done(req) });
  });

  app.post('/console/rewards/fund/:task_id', hidden, async (req, reply) => {
    const taskId = pathId(req, 'task_id', TASK_ID, 'task');
    const path = `/console/rewards/fund/${taskId}`;
    const owner = guardPost(ctx, req, reply, path);
    if (!owner) return reply;
    const form = parseForm(tokenOnlyForm, req.body);
    if (!form.ok) return showFund(req, reply, owner, 422, { error: form.message });
    try {
      await ctx.ownerRewards.fund(owner.id, taskId);
      return seeOther(reply, `${path}?done=funded`);
    } catch (err) {
      if (!(err instanceof DomainError) || err.code === 'NOT_FOUND') throw err;
      return showFund(req, reply, owner, httpStatusOf(err.code), { error: refusal(err) });
    }
  });
}
