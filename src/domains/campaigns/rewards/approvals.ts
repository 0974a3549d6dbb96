import { eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Currency } from '../../funds/index.ts';
import {
  account,
  balanceOf,
  escrowAccountKey,
  lockAccount,
  money,
  ownerAccount,
  post,
} from '../../funds/index.ts';
import { appendEvent } from '../core/ledger.ts';
import { lockTask } from '../core/task-repo.ts';
import { lockRewardOfTask } from './escrow.ts';
import { returnForRework } from './release.ts';
import { rewardApprovals, taskRewards } from './tables.ts';

/**
 * The campaign owner's decision on a release request: approve (escrow → the worker's owner's
 * balance) or return (rework). It is the owner's act alone; no agent credential reaches it.
 * Taken once: concurrent decisions queue on the task row, and the first one settles it; the
 * funds ledger's unique `settle:<task>` key would refuse a second payout even so.
 */

export type ApprovalRow = typeof rewardApprovals.$inferSelect;

export const approvalNotFound = (approvalId: string) =>
  new DomainError('NOT_FOUND', `No release request ${approvalId} of yours.`, { approval_id: approvalId });

function notPending(a: ApprovalRow): DomainError {
  return new DomainError(
    'APPROVAL_NOT_PENDING',
    `Release request ${a.id} is ${a.status}; it was decided ${a.decidedAt?.toISOString() ?? 'already'}.`,
    {
      approval_id: a.id,
      status: a.status,
      decided_at: a.decidedAt?.toISOString() ?? null,
      task_id: a.taskId,
    },
  );
}

export async function decideApproval(
  ex: Executor,
  ownerId: string,
  approvalId: string,
  decision: { action: 'approve' | 'return'; reason?: string | undefined },
  now: Date,
) {
  const [seen] = await ex.select().from(rewardApprovals).where(eq(rewardApprovals.id, approvalId));
  if (seen?.ownerId !== ownerId) throw approvalNotFound(approvalId);
  // A decided request never becomes PENDING again: refuse it without queueing on the task row.
  if (seen.status !== 'PENDING') throw notPending(seen);
  // Task row first (every writer's lock order), then the approval as it is now.
  const task = await lockTask(ex, seen.taskId);
  const [a] = await ex.select().from(rewardApprovals).where(eq(rewardApprovals.id, approvalId)).for('update');
  if (a?.status !== 'PENDING') throw notPending(a ?? seen);
  const actor = { ownerId, role: 'OWNER' } as const;
  if (decision.action === 'return') {
    const reason = decision.reason?.trim();
    if (!reason) {
      throw new DomainError(
        'VALIDATION_FAILED',
        'Returning a result for rework needs a reason the worker can act on.',
        {
          field: 'reason',
        },
      );
    }
    const returned = await returnForRework(ex, task, actor, reason, now);
    return { approval_id: a.id, status: 'RETURNED', task: returned };
  }
  const r = await lockRewardOfTask(ex, task.id);
  if (r?.status !== 'RELEASE_REQUESTED' || task.status !== 'VERIFIED') {
    // Cannot happen while the approval is PENDING (cancel and return end it in the same transaction).
    throw notPending({ ...a, status: r?.status ?? 'NO_REWARD' });
  }
  const currency = r.currency as Currency;
  const escrow = await account(
    ex,
    { key: escrowAccountKey(task.id, currency), kind: 'ESCROW', currency },
    now,
  );
  await lockAccount(ex, escrow.id);
  if ((await balanceOf(ex, escrow.id)) < a.amount) {
    throw new Error(`escrow of task ${task.id} holds less than the approved amount`);
  }
  const payee = await ownerAccount(ex, a.workerOwnerId, currency, now);
  const transactionId = await post(
    ex,
    {
      kind: 'RELEASE',
      purposeKey: `settle:${task.id}`,
      campaignId: task.campaignId,
      taskId: task.id,
      actor: `owner:${ownerId}`,
      note: `reward approved (${a.id})`,
      lines: [
        { account: escrow, amount: -a.amount },
        { account: payee, amount: a.amount },
      ],
    },
    now,
  );
  if (!transactionId) throw notPending({ ...a, status: 'SETTLED' });
  await ex
    .update(rewardApprovals)
    .set({ status: 'APPROVED', decidedBy: `owner:${ownerId}`, decidedAt: now, transactionId })
    .where(eq(rewardApprovals.id, a.id));
  await ex
    .update(taskRewards)
    .set({
      status: 'PAID',
      paidToAgentId: a.workerAgentId,
      paidToOwnerId: a.workerOwnerId,
      settledAt: now,
      updatedAt: now,
    })
    .where(eq(taskRewards.taskId, task.id));
  await appendEvent(
    ex,
    task.campaignId,
    {
      kind: 'REWARD_PAID',
      // About the worker's result: its payee is hidden where the mode hides others' results.
      isResult: true,
      actor,
      taskId: task.id,
      subjectAgentId: a.workerAgentId,
      payload: {
        task_id: task.id,
        approval_id: a.id,
        transaction_id: transactionId,
        currency,
        minor_units: a.amount,
        paid_to_agent_id: a.workerAgentId,
      },
    },
    now,
  );
  return {
    approval_id: a.id,
    status: 'APPROVED',
    paid: money(currency, a.amount),
    transaction_id: transactionId,
    paid_to_agent_id: a.workerAgentId,
  };
}
