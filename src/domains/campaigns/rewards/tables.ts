import { sql } from 'drizzle-orm';
import { bigint, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from '../../../storage/columns.ts';
import { ownerRef } from '../../identity/tables.ts';
import { campaigns, tasks } from '../tables.ts';

/**
 * Task rewards (docs/rewards.md): what a task pays, from whose balance, and where it stands. The
 * money itself is in the funds ledger (escrow account `escrow:<task id>:<currency>`); these rows
 * say why it moved. Amounts are minor units (points, or US cents).
 */
export const taskRewards = pgTable(
  'task_rewards',
  {
    taskId: text('task_id')
      .primaryKey()
      .references(() => tasks.id),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    /** The campaign's owner of record: whose balance funds it and who approves its release. */
    ownerId: ownerRef(),
    currency: text('currency', { enum: ['POINTS', 'USD'] }).notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    /** The platform fee taken at funding, on top of the amount. */
    fee: bigint('fee', { mode: 'number' }).notNull(),
    /** AWAITING_FUNDING, ESCROWED, RELEASE_REQUESTED, PAID, REFUNDED, CANCELLED (never funded). */
    status: text('status').notNull(),
    paidToAgentId: text('paid_to_agent_id'),
    paidToOwnerId: text('paid_to_owner_id'),
    fundedAt: ts('funded_at'),
    settledAt: ts('settled_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    index('task_rewards_campaign_idx').on(t.campaignId),
    index('task_rewards_owner_idx').on(t.ownerId, t.status),
  ],
);

/**
 * A release request waiting for the campaign owner. At most one PENDING per task, enforced by
 * the database; the decision is the owner's alone.
 */
export const rewardApprovals = pgTable(
  'reward_approvals',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    campaignId: text('campaign_id').notNull(),
    /** The approver: the campaign's owner of record. */
    ownerId: ownerRef(),
    /** The verified submission the payout is for, and its worker (the payee) and the worker's owner. */
    submissionId: text('submission_id').notNull(),
    workerAgentId: text('worker_agent_id').notNull(),
    workerOwnerId: text('worker_owner_id').notNull(),
    requestedBy: text('requested_by').notNull(),
    currency: text('currency', { enum: ['POINTS', 'USD'] }).notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    /** PENDING, APPROVED, RETURNED, CANCELLED. */
    status: text('status').notNull(),
    reason: text('reason'),
    decidedBy: text('decided_by'),
    decidedAt: ts('decided_at'),
    transactionId: text('transaction_id'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('reward_approvals_pending_key').on(t.taskId).where(sql`${t.status} = 'PENDING'`),
    index('reward_approvals_owner_idx').on(t.ownerId, t.status, t.createdAt),
  ],
);
