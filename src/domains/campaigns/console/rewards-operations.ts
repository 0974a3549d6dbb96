import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { CURRENCIES, type Currency, toMinor } from '../../funds/index.ts';
import type { CampaignDoorServices } from './context.ts';

const tags = ['rewards'];
const approvalId = idOf('apr', 'release request');
const taskId = idOf('task', 'task');
const reason = z.string().trim().min(1).max(2_000);

const op = defineOwnerOperation<CampaignDoorServices>();

/**
 * Paid tasks for a signed-in owner or an owner API token (docs/rewards.md): balance, postings,
 * release requests and their decision, funding and cancelling a task. Inside the owner API
 * scope, which resolved the owner (never an agent: agent tokens are not accepted there) and
 * accepts only JSON bodies.
 */
export const rewardsOperations = [
  op({
    method: 'GET',
    path: '/v1/rewards/balance',
    tags,
    summary: 'Your balance in points and in US dollars (kept apart, never converted)',
    run: async (ctx, { ownerId }) => ctx.funds.balance(ownerId),
  }),
  op({
    method: 'GET',
    path: '/v1/rewards/postings',
    tags,
    summary: 'The postings of your balance, newest first (signed cursor)',
    query: z
      .object({
        limit: z.coerce.number().int().min(1).max(100).default(50),
        cursor: z.string().min(1).max(1_000).optional(),
        currency: z.enum(CURRENCIES).optional(),
      })
      .strict(),
    run: async (ctx, { ownerId, query }) => ctx.funds.postings(ownerId, query),
  }),
  op({
    method: 'GET',
    path: '/v1/rewards/approvals',
    tags,
    summary: 'Release requests of your campaigns, newest first; PENDING unless another status is asked for',
    query: z
      .object({
        status: z.enum(['PENDING', 'APPROVED', 'RETURNED', 'CANCELLED', 'ALL']).default('PENDING'),
        limit: z.coerce.number().int().min(1).max(100).default(50),
        cursor: z.string().min(1).max(1_000).optional(),
      })
      .strict(),
    run: async (ctx, { ownerId, query }) => ctx.ownerRewards.approvals(ownerId, query),
  }),
  op({
    method: 'GET',
    path: '/v1/rewards/approvals/:approval_id',
    tags,
    summary: 'One release request: the task, the result, its matched and unmatched quotes',
    params: z.object({ approval_id: approvalId }).strict(),
    run: async (ctx, { ownerId, params }) => ctx.ownerRewards.approval(ownerId, params.approval_id),
  }),
  op({
    method: 'POST',
    path: '/v1/rewards/approvals/:approval_id/decision',
    tags,
    summary:
      'Approve a release (escrow → the worker’s owner) or return the result for rework (with a reason)',
    params: z.object({ approval_id: approvalId }).strict(),
    body: z.object({ action: z.enum(['approve', 'return']), reason: reason.optional() }).strict(),
    run: async (ctx, { ownerId, params, body }) => ctx.ownerRewards.decide(ownerId, params.approval_id, body),
  }),
  op({
    method: 'GET',
    path: '/v1/rewards/tasks/:task_id/funding',
    tags,
    summary: "A task's reward, your balance and what is missing to fund it",
    params: z.object({ task_id: taskId }).strict(),
    run: async (ctx, { ownerId, params }) => ctx.ownerRewards.funding(ownerId, params.task_id),
  }),
  op({
    method: 'POST',
    path: '/v1/rewards/tasks/:task_id/fund',
    tags,
    summary: 'Fund a task’s reward from your balance (it moves to escrow); the JSON body may be {}',
    params: z.object({ task_id: taskId }).strict(),
    body: z.object({}).strict().optional(),
    run: async (ctx, { ownerId, params }) => ctx.ownerRewards.fund(ownerId, params.task_id),
  }),
  op({
    method: 'POST',
    path: '/v1/tasks/:task_id/cancel',
    tags,
    summary: 'Cancel a task of your campaign; an escrowed reward is refunded to your balance at once',
    params: z.object({ task_id: taskId }).strict(),
    body: z.object({ reason }).strict(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.campaigns.cancelTask(ownerId, params.task_id, body.reason),
  }),
  op({
    method: 'POST',
    path: '/v1/funds/credits',
    tags,
    summary: "Credit an owner's balance (operators only; the same as cairn funds add)",
    body: z
      .object({
        owner_email: z.string().trim().email().max(254),
        currency: z.enum(CURRENCIES),
        amount: z.number().positive().max(1_000_000_000),
        note: z.string().trim().min(1).max(500).optional(),
        // Required here: an HTTP retry must not credit twice (the CLI makes one per run).
        reference: z.string().trim().min(8).max(100),
      })
      .strict(),
    run: async (ctx, { ownerId, body }) => {
      const me = ownerId;
      if (!(await ctx.operators.isOperator(me))) {
        throw new DomainError('OPERATOR_REQUIRED', 'Only an operator of this Cairn credits balances.');
      }
      const b = body;
      const credited = await ctx.funds.credit({
        ownerId: (await ctx.operators.ownerByEmail(b.owner_email)).id,
        currency: b.currency as Currency,
        amount: minorOf(b.currency, b.amount),
        actor: `owner:${me}`,
        note: b.note ?? null,
        reference: b.reference,
      });
      return credited;
    },
    // Answered after the handler: 201 when it made something, 200 when it was already there.
    statusOf: (answer) => (answer.replayed ? 200 : 201),
  }),
];

function minorOf(currency: Currency, amount: number): number {
  const minor = toMinor(currency, amount);
  if (minor === null || minor <= 0) {
    throw new DomainError(
      'VALIDATION_FAILED',
      `amount must be a whole number of ${currency === 'USD' ? 'cents' : 'points'}.`,
      {
        field: 'amount',
      },
    );
  }
  return minor;
}
