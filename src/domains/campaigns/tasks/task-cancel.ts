import { and, eq, isNull } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { type Currency, money } from '../../funds/index.ts';
import { appendEvent } from '../core/ledger.ts';
import { lockTask, ownerActorId, recordHistory, type TaskRow } from '../core/task-repo.ts';
import { taskNotFound } from '../errors.ts';
import { settleOnCancel } from '../rewards/escrow.ts';
import { campaigns, taskLeases, tasks } from '../tables.ts';

/**
 * Cancelling a task, by the campaign's owner of record (console, `/v1`). One transaction: an
 * open lease ends (its worker is never paid for the task), a pending release request is
 * cancelled, an escrowed reward goes back to the owner's balance, and the ledger records it.
 */
export async function cancelTask(ex: Executor, ownerId: string, taskId: string, reason: string, now: Date) {
  // Ownership first, without a lock: another owner's task is not found, and not queued on either.
  const [owned] = await ex
    .select({ id: tasks.id })
    .from(tasks)
    .innerJoin(campaigns, eq(campaigns.id, tasks.campaignId))
    .where(and(eq(tasks.id, taskId), eq(campaigns.ownerId, ownerId)));
  if (!owned) throw taskNotFound(taskId);
  const task = await lockTask(ex, taskId);
  if (task.status === 'CANCELLED') {
    throw new DomainError('CONFLICT', `Task ${taskId} is already cancelled.`, {
      task_id: taskId,
      status: task.status,
    });
  }
  return cancelLocked(ex, ownerId, task, reason, now);
}

/**
 * The cancellation itself, of a task the caller locked and found not cancelled, by its
 * campaign's owner of record: by hand (cancelTask) or as the campaign closes.
 */
export async function cancelLocked(ex: Executor, ownerId: string, task: TaskRow, reason: string, now: Date) {
  const taskId = task.id;
  const actor = ownerActorId(ownerId);
  await ex
    .update(taskLeases)
    .set({ endedAt: now, endReason: 'CANCELLED' })
    .where(and(eq(taskLeases.taskId, taskId), isNull(taskLeases.endedAt)));
  const reward = await settleOnCancel(ex, taskId, actor, now);
  const version = task.version + 1;
  await ex.update(tasks).set({ status: 'CANCELLED', version, updatedAt: now }).where(eq(tasks.id, taskId));
  await recordHistory(ex, {
    taskId,
    agentId: actor,
    kind: 'CANCEL',
    before: { status: task.status },
    after: { status: 'CANCELLED', reason },
    version,
    now,
  });
  const refund = reward ? money(reward.currency as Currency, reward.refunded) : null;
  await appendEvent(
    ex,
    task.campaignId,
    {
      kind: 'TASK_CANCELLED',
      actor: { ownerId, role: 'OWNER' },
      taskId,
      payload: {
        task_id: taskId,
        reason,
        status: 'CANCELLED',
        reward_status: reward?.status ?? null,
        refund,
      },
    },
    now,
  );
  if (reward?.status === 'REFUNDED') {
    await appendEvent(
      ex,
      task.campaignId,
      {
        kind: 'REWARD_REFUNDED',
        actor: { ownerId, role: 'OWNER' },
        taskId,
        payload: { task_id: taskId, currency: reward.currency, minor_units: reward.refunded },
      },
      now,
    );
  }
  return {
    task_id: taskId,
    status: 'CANCELLED',
    version,
    reward_status: reward?.status ?? null,
    refunded: refund,
  };
}
