import { and, desc, eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { type Currency, money } from '../../funds/index.ts';
import { findAgent } from '../../identity/index.ts';
import { storedConditions } from '../core/conditions.ts';
import { type Actor, appendEvent } from '../core/ledger.ts';
import { recordHistory, type TaskRow } from '../core/task-repo.ts';
import { taskSubmissions, tasks } from '../tables.ts';
import { lockRewardOfTask, pendingApprovalOf, type TaskRewardRow } from './escrow.ts';
import { approvalUrl } from './reward-present.ts';
import { rewardApprovals, taskRewards } from './tables.ts';

/**
 * reward_release (SPEC Task reward rows): RELEASE asks the campaign owner to approve a payout
 * and pays nothing by itself; RETURN sends a submitted result back to rework, to the same
 * worker while the rework limit lasts and to everyone after it.
 */

export type SubmissionRow = typeof taskSubmissions.$inferSelect;

/**
 * The result a release or a return is about: the submission that made the task VERIFIED (as
 * recorded by task_complete, not guessed from clocks), else the latest one.
 */
export async function resultOf(ex: Executor, task: TaskRow): Promise<SubmissionRow | null> {
  const [row] = await ex
    .select()
    .from(taskSubmissions)
    .where(
      task.verifiedSubmissionId
        ? eq(taskSubmissions.id, task.verifiedSubmissionId)
        : eq(taskSubmissions.taskId, task.id),
    )
    .orderBy(desc(taskSubmissions.createdAt), desc(taskSubmissions.id))
    .limit(1);
  return row ?? null;
}

/** Why the task's result does not make its reward releasable, with the move that can change that. */
function notReleasable(task: TaskRow, latest: SubmissionRow | null, r: TaskRewardRow): DomainError {
  if (r.status === 'PAID' || r.status === 'REFUNDED' || r.status === 'CANCELLED') {
    return new DomainError(
      'REWARD_NOT_RELEASABLE',
      `The reward of task ${task.id} is ${r.status}; there is nothing left to release.`,
      { task_id: task.id, reward_status: r.status },
      { next: 'Read task_get for where the reward stands.' },
    );
  }
  const paid = (latest?.verification as { paid_quotes?: { unmatched?: unknown[] } } | undefined)?.paid_quotes;
  const next =
    task.status === 'CLAIMED'
      ? 'The worker fixes what the checks name (for paid work: quote only what it read under this task) and calls task_complete again before the execution_deadline.'
      : task.status === 'VERIFIED'
        ? 'The verified result no longer passes its checks (a re-check by its submitter): the submitter fixes its evidence and runs result_verify again, or a coordinator returns it for rework (reward_release RETURN).'
        : 'Wait for a worker to claim it and hand in a result that verifies (events_watch shows TASK_SUBMITTED).';
  return new DomainError(
    'REWARD_NOT_RELEASABLE',
    `Task ${task.id} is ${task.status}: a reward is released only after a VERIFIED result.`,
    {
      task_id: task.id,
      task_status: task.status,
      latest_submission_id: latest?.id ?? null,
      latest_verified_status: latest?.verifiedStatus ?? null,
      ...(paid?.unmatched ? { unmatched_paid_quotes: paid.unmatched } : {}),
    },
    { next },
  );
}

export async function requestRelease(
  ex: Executor,
  task: TaskRow,
  who: { agentId: string; role: 'COORDINATOR' | 'PARTICIPANT' },
  baseUrl: string,
  now: Date,
) {
  const r = await lockRewardOfTask(ex, task.id);
  if (!r) {
    throw new DomainError('NO_REWARD', `Task ${task.id} carries no reward; there is nothing to release.`, {
      task_id: task.id,
    });
  }
  const latest = await resultOf(ex, task);
  const worker = latest?.agentId ?? null;
  if (who.role !== 'COORDINATOR' && who.agentId !== worker) {
    throw new DomainError(
      'ROLE_REQUIRED',
      'Only the worker whose result was verified, or a coordinator, may ask for the release of this reward.',
      { task_id: task.id, required_role: 'COORDINATOR', your_role: who.role },
    );
  }
  if (r.status === 'RELEASE_REQUESTED') {
    const pending = await pendingApprovalOf(ex, task.id);
    if (pending) return releaseAnswer(task, r, pending.id, pending.workerAgentId, baseUrl, true);
  }
  if (r.status === 'AWAITING_FUNDING') {
    throw new DomainError('REWARD_NOT_FUNDED', `The reward of task ${task.id} was never funded.`, {
      task_id: task.id,
    });
  }
  if (
    r.status !== 'ESCROWED' ||
    task.status !== 'VERIFIED' ||
    !latest ||
    latest.verifiedStatus !== 'VERIFIED'
  ) {
    throw notReleasable(task, latest, r);
  }
  const ownerOfWorker = (await findAgent(ex, latest.agentId))?.ownerId;
  if (!ownerOfWorker) throw new Error(`worker ${latest.agentId} of task ${task.id} has no owner`);
  const id = newId('apr', now);
  await ex.insert(rewardApprovals).values({
    id,
    taskId: task.id,
    campaignId: task.campaignId,
    ownerId: r.ownerId,
    submissionId: latest.id,
    workerAgentId: latest.agentId,
    workerOwnerId: ownerOfWorker,
    requestedBy: who.agentId,
    currency: r.currency,
    amount: r.amount,
    status: 'PENDING',
    createdAt: now,
  });
  await ex
    .update(taskRewards)
    .set({ status: 'RELEASE_REQUESTED', updatedAt: now })
    .where(eq(taskRewards.taskId, task.id));
  await appendEvent(
    ex,
    task.campaignId,
    {
      kind: 'REWARD_RELEASE_REQUESTED',
      // About the worker's result: its payee is hidden where the mode hides others' results.
      isResult: true,
      actor: who,
      taskId: task.id,
      subjectAgentId: latest.agentId,
      payload: {
        task_id: task.id,
        approval_id: id,
        submission_id: latest.id,
        currency: r.currency,
        minor_units: r.amount,
      },
    },
    now,
  );
  return releaseAnswer(task, r, id, latest.agentId, baseUrl, false);
}

function releaseAnswer(
  task: TaskRow,
  r: TaskRewardRow,
  approvalId: string,
  worker: string,
  baseUrl: string,
  already: boolean,
) {
  return {
    task_id: task.id,
    worker_agent_id: worker,
    approval_id: approvalId,
    approval_url: approvalUrl(baseUrl, approvalId),
    status: 'AWAITING_OWNER_APPROVAL',
    reward: money(r.currency as Currency, r.amount),
    paid: false,
    already_requested: already,
    meaning:
      'Nothing is paid yet: the campaign owner approves or returns this release at approval_url. On approval the reward moves from escrow to the balance of the worker’s owner (REWARD_PAID on the ledger).',
  };
}

/**
 * Sends the latest result back for rework: a pending release request is returned, the reward
 * stays in escrow, and the task reopens reserved for the same worker while rework_count is
 * within rework_limit, for everyone once it is past it.
 */
export async function returnForRework(ex: Executor, task: TaskRow, actor: Actor, reason: string, now: Date) {
  if (task.status !== 'VERIFIED' && task.status !== 'SUBMITTED') {
    throw new DomainError(
      'REWARD_NOT_RELEASABLE',
      `Task ${task.id} is ${task.status}: only a handed-in result can be returned for rework.`,
      { task_id: task.id, task_status: task.status },
      { next: 'Return a result once it was handed in and verified (task_get shows the status).' },
    );
  }
  const r = await lockRewardOfTask(ex, task.id);
  if (r?.status === 'PAID') {
    // Rework after the payout would be work nobody pays for.
    throw new DomainError(
      'REWARD_NOT_RELEASABLE',
      `The reward of task ${task.id} was already paid; its result can no longer be returned for rework.`,
      { task_id: task.id, reward_status: r.status },
      { next: 'Publish a follow-up task for further work.' },
    );
  }
  const latest = await resultOf(ex, task);
  const worker = latest?.agentId ?? null;
  const decidedBy =
    'ownerId' in actor ? `owner:${actor.ownerId}` : 'agentId' in actor ? actor.agentId : 'system';
  await ex
    .update(rewardApprovals)
    .set({ status: 'RETURNED', reason, decidedBy, decidedAt: now })
    .where(and(eq(rewardApprovals.taskId, task.id), eq(rewardApprovals.status, 'PENDING')));
  if (r?.status === 'RELEASE_REQUESTED') {
    await ex
      .update(taskRewards)
      .set({ status: 'ESCROWED', updatedAt: now })
      .where(eq(taskRewards.taskId, task.id));
  }
  const reworkCount = task.reworkCount + 1;
  const limit = storedConditions(task.conditions).rework_limit;
  const reservedFor = reworkCount <= limit ? worker : null;
  const version = task.version + 1;
  await ex
    .update(tasks)
    .set({
      status: 'OPEN',
      assigneeId: reservedFor,
      reworkCount,
      verifiedSubmissionId: null,
      version,
      updatedAt: now,
    })
    .where(eq(tasks.id, task.id));
  const byId = 'agentId' in actor ? actor.agentId : 'ownerId' in actor ? `owner:${actor.ownerId}` : null;
  await recordHistory(ex, {
    taskId: task.id,
    agentId: byId,
    kind: 'RETURN',
    before: { status: task.status, assignee_id: task.assigneeId },
    after: { status: 'OPEN', assignee_id: reservedFor, rework_count: reworkCount, reason },
    version,
    now,
  });
  await appendEvent(
    ex,
    task.campaignId,
    {
      kind: 'TASK_RETURNED',
      // About the worker's result: its payee is hidden where the mode hides others' results.
      isResult: true,
      actor,
      taskId: task.id,
      subjectAgentId: worker,
      payload: {
        task_id: task.id,
        reason,
        rework_count: reworkCount,
        rework_limit: limit,
        reserved_for: reservedFor,
        status: 'OPEN',
      },
    },
    now,
  );
  return {
    task_id: task.id,
    status: 'OPEN',
    version,
    rework_count: reworkCount,
    rework_limit: limit,
    reserved_for: reservedFor,
    reason,
    meaning:
      reservedFor !== null
        ? `Returned for rework: reserved for ${reservedFor}, who claims it again (task_claim) and resubmits; rework ${reworkCount} of ${limit}.`
        : `Returned past the rework limit (${limit}): the task is open to every member again.`,
    reward_status: r ? (r.status === 'RELEASE_REQUESTED' ? 'ESCROWED' : r.status) : null,
  };
}
