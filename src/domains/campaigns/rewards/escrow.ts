import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import {
  account,
  balanceOf,
  escrowAccountKey,
  feeAccountKey,
  lockAccount,
  ownerAccount,
  post,
} from '../../funds/index.ts';
import { rewardApprovals, taskRewards } from './tables.ts';

/**
 * The reward's money: escrow when funded (owner → escrow, and the fee to the platform), and
 * the refund when its task is cancelled (escrow → owner). Each runs in the transaction of the
 * change it belongs to; the funds ledger's unique purpose keys make a second escrow or a second
 * settlement of one task impossible, whatever the callers do.
 */

export type TaskRewardRow = typeof taskRewards.$inferSelect;

export async function rewardOfTask(ex: Executor, taskId: string): Promise<TaskRewardRow | null> {
  const [row] = await ex.select().from(taskRewards).where(eq(taskRewards.taskId, taskId));
  return row ?? null;
}

/** The rewards of a page of tasks, by task id. */
export async function rewardsOfTasks(ex: Executor, taskIds: string[]): Promise<Map<string, TaskRewardRow>> {
  if (taskIds.length === 0) return new Map();
  const rows = await ex.select().from(taskRewards).where(inArray(taskRewards.taskId, taskIds));
  return new Map(rows.map((r) => [r.taskId, r]));
}

/** The reward row locked for a change (callers have locked the task row first). */
export async function lockRewardOfTask(ex: Executor, taskId: string): Promise<TaskRewardRow | null> {
  const [row] = await ex.select().from(taskRewards).where(eq(taskRewards.taskId, taskId)).for('update');
  return row ?? null;
}

/**
 * Moves the reward and its fee from the owner's balance into escrow when the balance covers
 * both; otherwise moves nothing and answers false (the reward stays AWAITING_FUNDING).
 */
export async function escrowIfCovered(
  ex: Executor,
  r: TaskRewardRow,
  actor: string,
  now: Date,
): Promise<boolean> {
  const owner = await ownerAccount(ex, r.ownerId, r.currency, now);
  await lockAccount(ex, owner.id);
  const needed = r.amount + r.fee;
  if ((await balanceOf(ex, owner.id)) < needed) return false;
  const escrow = await account(
    ex,
    { key: escrowAccountKey(r.taskId, r.currency), kind: 'ESCROW', currency: r.currency },
    now,
  );
  const fee = await account(
    ex,
    { key: feeAccountKey(r.currency), kind: 'PLATFORM_FEE', currency: r.currency },
    now,
  );
  const posted = await post(
    ex,
    {
      kind: 'ESCROW',
      purposeKey: `escrow:${r.taskId}`,
      campaignId: r.campaignId,
      taskId: r.taskId,
      actor,
      note: r.fee > 0 ? 'reward escrowed; platform fee taken' : 'reward escrowed',
      lines: [
        { account: owner, amount: -needed },
        { account: escrow, amount: r.amount },
        { account: fee, amount: r.fee },
      ],
    },
    now,
  );
  if (!posted) return false;
  await ex
    .update(taskRewards)
    .set({ status: 'ESCROWED', fundedAt: now, updatedAt: now })
    .where(eq(taskRewards.taskId, r.taskId));
  return true;
}

/**
 * A task is cancelled: an escrowed reward goes back to the owner's balance, an unfunded one is
 * dropped, and a pending release request is cancelled with it. The fee is refunded with the
 * escrow (docs/rewards.md). Answers what happened to the reward, or null without one.
 */
export async function settleOnCancel(
  ex: Executor,
  taskId: string,
  actor: string,
  now: Date,
): Promise<{ status: 'REFUNDED' | 'CANCELLED'; refunded: number; currency: string } | null> {
  const r = await lockRewardOfTask(ex, taskId);
  if (!r || r.status === 'PAID' || r.status === 'REFUNDED' || r.status === 'CANCELLED') return null;
  await ex
    .update(rewardApprovals)
    .set({ status: 'CANCELLED', decidedAt: now, reason: 'task cancelled' })
    .where(and(eq(rewardApprovals.taskId, taskId), eq(rewardApprovals.status, 'PENDING')));
  if (r.status === 'AWAITING_FUNDING') {
    await ex
      .update(taskRewards)
      .set({ status: 'CANCELLED', updatedAt: now })
      .where(eq(taskRewards.taskId, taskId));
    return { status: 'CANCELLED', refunded: 0, currency: r.currency };
  }
  const escrow = await account(
    ex,
    { key: escrowAccountKey(taskId, r.currency), kind: 'ESCROW', currency: r.currency },
    now,
  );
  await lockAccount(ex, escrow.id);
  const held = await balanceOf(ex, escrow.id);
  const owner = await ownerAccount(ex, r.ownerId, r.currency, now);
  const fee = await account(
    ex,
    { key: feeAccountKey(r.currency), kind: 'PLATFORM_FEE', currency: r.currency },
    now,
  );
  // Nothing was paid for: the fee comes back too, so a cancelled task costs its owner nothing
  // (and an agent publishing paid tasks cannot burn the owner's balance in fees).
  if (held + r.fee > 0) {
    await post(
      ex,
      {
        kind: 'REFUND',
        purposeKey: `settle:${taskId}`,
        campaignId: r.campaignId,
        taskId,
        actor,
        note: r.fee > 0 ? 'task cancelled; escrow and fee refunded' : 'task cancelled; escrow refunded',
        lines: [
          { account: escrow, amount: -held },
          { account: fee, amount: -r.fee },
          { account: owner, amount: held + r.fee },
        ],
      },
      now,
    );
  }
  await ex
    .update(taskRewards)
    .set({ status: 'REFUNDED', settledAt: now, updatedAt: now })
    .where(eq(taskRewards.taskId, taskId));
  return { status: 'REFUNDED', refunded: held + r.fee, currency: r.currency };
}

/** The pending release request of a task, if any. */
export async function pendingApprovalOf(ex: Executor, taskId: string) {
  const [row] = await ex
    .select()
    .from(rewardApprovals)
    .where(and(eq(rewardApprovals.taskId, taskId), inArray(rewardApprovals.status, ['PENDING'])));
  return row ?? null;
}
