import { eq, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import { appendEvent } from '../core/ledger.ts';
import { actorOf, type Membership } from '../core/member.ts';
import { requireActiveAgent, taskForMember } from '../core/task-access.ts';
import { recordHistory } from '../core/task-repo.ts';
import { taskLeases, tasks } from '../tables.ts';
import { requireCurrentLease } from './leases.ts';

/**
 * What the holder of a lease does with it, and the coordinator's hand-over: keeping it
 * (task_heartbeat), giving it up (task_release) and delegating the task (task_delegate).
 * Claiming is task-claims.ts.
 */

export const RELEASE_REASONS = ['REFUSED', 'OUT_OF_SCOPE', 'BLOCKED', 'NO_PROGRESS', 'OTHER'] as const;
export type ReleaseReason = (typeof RELEASE_REASONS)[number];

/**
 * task_heartbeat: records that the worker is alive. It never moves the execution_deadline
 * (SPEC Limits): the answer repeats it with the seconds left.
 */
export async function heartbeatLease(
  ex: Executor,
  caller: Caller,
  taskId: string,
  leaseId: string,
  now: Date,
  campaignId?: string,
) {
  await taskForMember(ex, caller, taskId, { mustSee: false, campaignId });
  return heartbeatAs(ex, caller.agent.id, taskId, leaseId, now);
}

/** The heartbeat of a lease holder whose standing the caller checked. */
export async function heartbeatAs(ex: Executor, agentId: string, taskId: string, leaseId: string, now: Date) {
  const { lease } = await requireCurrentLease(ex, agentId, taskId, leaseId, now);
  await ex.update(taskLeases).set({ lastHeartbeatAt: now }).where(eq(taskLeases.id, lease.id));
  return {
    task_id: taskId,
    lease_id: lease.id,
    execution_deadline: lease.executionDeadline.toISOString(),
    seconds_left: Math.max(0, Math.floor((lease.executionDeadline.getTime() - now.getTime()) / 1000)),
    last_heartbeat_at: now.toISOString(),
  };
}

/**
 * task_release by the claimant: the lease ends (RELEASED, with the reason), the task reopens
 * (BLOCKED for reason BLOCKED, so nobody claims it until its creator edits or reassigns it),
 * and a reservation for this worker is cleared (SPEC States: "reservation of that worker cleared").
 */
export async function releaseTask(
  ex: Executor,
  caller: Caller,
  input: {
    taskId: string;
    campaignId?: string | undefined;
    leaseId: string;
    reason: ReleaseReason;
    note?: string | undefined;
  },
  now: Date,
) {
  const { member } = await taskForMember(ex, caller, input.taskId, {
    mustSee: false,
    campaignId: input.campaignId,
  });
  return releaseAs(ex, member, input, now);
}

/** The release by a lease holder whose standing the caller checked (a member, or a public taker). */
export async function releaseAs(
  ex: Executor,
  member: Membership,
  input: { taskId: string; leaseId: string; reason: ReleaseReason; note?: string | undefined },
  now: Date,
) {
  const { lease, task } = await requireCurrentLease(ex, member.agentId, input.taskId, input.leaseId, now);
  await ex
    .update(taskLeases)
    .set({ endedAt: now, endReason: 'RELEASED', releaseReason: input.reason })
    .where(eq(taskLeases.id, lease.id));
  const status = input.reason === 'BLOCKED' ? 'BLOCKED' : 'OPEN';
  const assigneeId = task.assigneeId === member.agentId ? null : task.assigneeId;
  const version = await moveTask(ex, task.id, { status, assigneeId }, now);
  const note = input.note ? { note: input.note } : {};
  await recordHistory(ex, {
    taskId: task.id,
    agentId: member.agentId,
    kind: 'RELEASE',
    before: { status: task.status, assignee_id: task.assigneeId },
    after: { status, assignee_id: assigneeId, reason: input.reason, ...note },
    version,
    now,
  });
  await appendEvent(
    ex,
    task.campaignId,
    {
      kind: 'TASK_RELEASED',
      actor: actorOf(member),
      taskId: task.id,
      payload: { task_id: task.id, status, reason: input.reason, ...note, version },
    },
    now,
  );
  return { task_id: task.id, lease_id: lease.id, status, reason: input.reason, version };
}

/**
 * task_delegate (docs/campaign-tasks.md): the lease holder hands the task to another active
 * member. The lease ends (DELEGATED) and the task reopens reserved for the delegate, who claims
 * it for a fresh execution_deadline; nobody else can take it meanwhile.
 */
export async function delegateTask(
  ex: Executor,
  caller: Caller,
  input: {
    taskId: string;
    campaignId?: string | undefined;
    leaseId: string;
    assigneeId: string;
    note?: string | undefined;
  },
  now: Date,
) {
  const { member } = await taskForMember(ex, caller, input.taskId, {
    forChange: true,
    mustSee: false,
    campaignId: input.campaignId,
  });
  const { lease, task } = await requireCurrentLease(ex, member.agentId, input.taskId, input.leaseId, now);
  if (input.assigneeId === member.agentId) {
    throw new DomainError('VALIDATION_FAILED', 'A task is delegated to another member, not to yourself.', {
      detail: [{ loc: ['arguments', 'assignee_id'], msg: 'must be another member', type: 'value_error' }],
    });
  }
  await requireActiveAgent(ex, task.campaignId, input.assigneeId, member);
  await ex
    .update(taskLeases)
    .set({ endedAt: now, endReason: 'DELEGATED' })
    .where(eq(taskLeases.id, lease.id));
  const version = await moveTask(ex, task.id, { status: 'OPEN', assigneeId: input.assigneeId }, now);
  const note = input.note ? { note: input.note } : {};
  await recordHistory(ex, {
    taskId: task.id,
    agentId: member.agentId,
    kind: 'DELEGATE',
    before: { status: task.status, assignee_id: task.assigneeId },
    after: { status: 'OPEN', assignee_id: input.assigneeId, ...note },
    version,
    now,
  });
  await appendEvent(
    ex,
    task.campaignId,
    {
      kind: 'TASK_DELEGATED',
      actor: actorOf(member),
      taskId: task.id,
      subjectAgentId: input.assigneeId,
      payload: { task_id: task.id, status: 'OPEN', assignee_id: input.assigneeId, ...note, version },
    },
    now,
  );
  return { task_id: task.id, status: 'OPEN', assignee_id: input.assigneeId, version };
}

/** Moves a task (locked by the caller) to a new status and reservation; returns the new version. */
async function moveTask(
  ex: Executor,
  taskId: string,
  to: { status: string; assigneeId: string | null },
  now: Date,
): Promise<number> {
  const [row] = await ex
    .update(tasks)
    .set({ status: to.status, assigneeId: to.assigneeId, version: sql`${tasks.version} + 1`, updatedAt: now })
    .where(eq(tasks.id, taskId))
    .returning({ version: tasks.version });
  if (!row) throw new Error(`task ${taskId} vanished under its lock`);
  return row.version;
}
