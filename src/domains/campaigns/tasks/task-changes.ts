import { eq, sql } from 'drizzle-orm';
import { canonicalJson } from '../../../kernel/canonical-json.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import { type ConditionsInput, completeConditions } from '../core/conditions.ts';
import { appendEvent } from '../core/ledger.ts';
import { actorOf, askACoordinator } from '../core/member.ts';
import {
  CHANGEABLE,
  notEditable,
  requireActiveAgent,
  taskForMember,
  versionConflict,
} from '../core/task-access.ts';
import { hasSubmission, lockTask, openLeaseOf, recordHistory, type TaskRow } from '../core/task-repo.ts';
import { rewardOfTask } from '../rewards/escrow.ts';
import { requireWithinCap } from '../rewards/reward-terms.ts';
import { tasks } from '../tables.ts';
import { expireDueLeases } from './leases.ts';
import { isFunded } from './task-reads.ts';

/** Changing a task while nobody works on it (task_edit, task_assign). */

export interface EditInput {
  taskId: string;
  campaignId?: string | undefined;
  expectedVersion: number;
  title?: string | undefined;
  objective?: string | undefined;
  acceptance?: string | undefined;
  /** Replaces the conditions as a whole, rechecked for missing terms. */
  conditions?: ConditionsInput | undefined;
}

/**
 * task_edit (SPEC States: open or blocked, no active claim, no submitted result): the creator
 * only, at the expected version. Editing a BLOCKED task reopens it, since the edit is how its
 * creator answers what blocked it. Fields equal to the current ones are not counted as changes;
 * an edit that changes nothing returns the task as it is, without a new version.
 */
export async function editTask(ex: Executor, caller: Caller, input: EditInput, now: Date) {
  const { member, task: seen } = await taskForMember(ex, caller, input.taskId, {
    forChange: true,
    campaignId: input.campaignId,
  });
  if (seen.createdBy !== member.agentId) {
    throw new DomainError(
      'ROLE_REQUIRED',
      'Only the creator of a task may edit it.',
      { task_id: seen.id, required_role: 'CREATOR', created_by: seen.createdBy },
      {
        next: 'Ask its creator (created_by) to change it, with message_send or in the thread.',
        alternatives: [
          {
            tool: 'message_append',
            action: 'Ask for the change in the campaign thread, linked to the task.',
            arguments: { campaign_id: seen.campaignId, type: 'QUESTION', task_id: seen.id },
          },
        ],
      },
    );
  }
  const given = { title: input.title, objective: input.objective, acceptance: input.acceptance };
  if (Object.values(given).every((v) => v === undefined) && input.conditions === undefined) {
    throw new DomainError(
      'VALIDATION_FAILED',
      'task_edit needs at least one of title, objective, acceptance, conditions.',
      {
        detail: [{ loc: ['arguments'], msg: 'nothing to change', type: 'value_error' }],
      },
    );
  }
  const task = await changeableTask(ex, input.taskId, input.expectedVersion, now);
  // A funded reward fixes the terms it was funded on (a reservation may still change: task_assign).
  if (isFunded((await rewardOfTask(ex, task.id))?.status)) {
    throw notEditable(
      task,
      'its reward is funded',
      "The terms are fixed while the reward is in escrow. To change them, ask the campaign's owner to cancel the task (the escrow and fee are refunded), then publish it anew.",
    );
  }
  const next: Record<string, unknown> = { ...given };
  if (input.conditions) {
    const conditions = completeConditions(input.conditions, task.id);
    // An unfunded reward stays within the (new) spend cap.
    const reward = await rewardOfTask(ex, task.id);
    if (reward?.status === 'AWAITING_FUNDING') requireWithinCap(conditions, reward);
    next.conditions = conditions;
  }
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(next)) {
    const current = task[name as keyof TaskRow];
    // Canonical form: jsonb hands the stored conditions back with its own key order.
    if (value === undefined || canonicalJson(value) === canonicalJson(current)) continue;
    before[name] = current;
    after[name] = value;
  }
  if (task.status === 'BLOCKED') {
    before.status = 'BLOCKED';
    after.status = 'OPEN';
  }
  if (Object.keys(after).length === 0) {
    return {
      task_id: task.id,
      version: task.version,
      status: task.status,
      edit_count: task.editCount,
      changed: [],
    };
  }
  const [row] = await ex
    .update(tasks)
    .set({
      ...after,
      version: sql`${tasks.version} + 1`,
      editCount: sql`${tasks.editCount} + 1`,
      lastEditedAt: now,
      updatedAt: now,
    })
    .where(eq(tasks.id, task.id))
    .returning();
  if (!row) throw new Error(`task ${task.id} vanished under its lock`);
  const changed = Object.keys(after).filter((k) => k !== 'status');
  await recordHistory(ex, {
    taskId: task.id,
    agentId: member.agentId,
    kind: 'EDIT',
    before,
    after,
    version: row.version,
    now,
  });
  await appendEvent(
    ex,
    task.campaignId,
    {
      kind: 'TASK_EDITED',
      actor: actorOf(member),
      taskId: task.id,
      payload: { task_id: task.id, changed, status: row.status, version: row.version },
    },
    now,
  );
  return { task_id: task.id, version: row.version, status: row.status, edit_count: row.editCount, changed };
}

/**
 * task_assign: the task's creator or an active coordinator reserves it for one active member,
 * or reopens it to anyone when assignee_id is omitted. Only while nobody holds it; a BLOCKED
 * task becomes OPEN again.
 */
export async function assignTask(
  ex: Executor,
  caller: Caller,
  input: {
    taskId: string;
    campaignId?: string | undefined;
    expectedVersion: number;
    assigneeId?: string | undefined;
  },
  now: Date,
) {
  const { member, task: seen } = await taskForMember(ex, caller, input.taskId, {
    forChange: true,
    campaignId: input.campaignId,
  });
  if (seen.createdBy !== member.agentId && member.role !== 'COORDINATOR') {
    throw new DomainError(
      'ROLE_REQUIRED',
      "Only the task's creator or a coordinator may assign it.",
      { task_id: seen.id, required_role: 'COORDINATOR', your_role: member.role },
      askACoordinator(seen.campaignId),
    );
  }
  // A result returned for rework (or given up after a failed check) leaves the task OPEN with a
  // submission: its reservation may still change, or a worker who never comes back would hold it.
  const task = await changeableTask(ex, input.taskId, input.expectedVersion, now, {
    submittedMayChange: true,
  });
  const assigneeId = input.assigneeId ?? null;
  if (assigneeId) await requireActiveAgent(ex, task.campaignId, assigneeId, member);
  const [row] = await ex
    .update(tasks)
    .set({ assigneeId, status: 'OPEN', version: sql`${tasks.version} + 1`, updatedAt: now })
    .where(eq(tasks.id, task.id))
    .returning();
  if (!row) throw new Error(`task ${task.id} vanished under its lock`);
  await recordHistory(ex, {
    taskId: task.id,
    agentId: member.agentId,
    kind: 'ASSIGN',
    before: { assignee_id: task.assigneeId, status: task.status },
    after: { assignee_id: assigneeId, status: 'OPEN' },
    version: row.version,
    now,
  });
  await appendEvent(
    ex,
    task.campaignId,
    {
      kind: 'TASK_ASSIGNED',
      actor: actorOf(member),
      taskId: task.id,
      subjectAgentId: assigneeId,
      payload: { task_id: task.id, assignee_id: assigneeId, status: 'OPEN', version: row.version },
    },
    now,
  );
  return { task_id: task.id, assignee_id: assigneeId, status: 'OPEN', version: row.version };
}

/**
 * The task locked for a change that needs it idle: a lease past its deadline is expired first
 * (so a lapsed claim does not block the creator), then OPEN or BLOCKED with no open lease and no
 * submission, at the expected version.
 */
async function changeableTask(
  ex: Executor,
  taskId: string,
  expectedVersion: number,
  now: Date,
  opts: { submittedMayChange?: boolean } = {},
): Promise<TaskRow> {
  await expireDueLeases(ex, now, { taskId });
  const task = await lockTask(ex, taskId);
  if (!CHANGEABLE.has(task.status)) throw notEditable(task, `it is ${task.status}`);
  if (await openLeaseOf(ex, taskId)) throw notEditable(task, 'an agent holds a lease on it');
  if (!opts.submittedMayChange && (await hasSubmission(ex, taskId))) {
    throw notEditable(task, 'it has a submitted result');
  }
  if (task.version !== expectedVersion) throw versionConflict(task, expectedVersion);
  return task;
}
