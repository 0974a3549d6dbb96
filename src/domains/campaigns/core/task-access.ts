import { eq, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { preparedStatement } from '../../../storage/prepared.ts';
import type { Caller } from '../../identity/index.ts';
import { seesAllTasks, seesOtherWorkers, type Viewer, viewerOf } from '../audience.ts';
import { taskNotFound } from '../errors.ts';
import { campaignMembers, campaigns, tasks } from '../tables.ts';
import { activeMembers, checkMembership, type Membership, memberOn } from './member.ts';
import { isVisible, type TaskRow } from './task-repo.ts';

/** The task a task tool names, in the caller's standing inside the task's campaign. */
export interface TaskAccess {
  task: TaskRow;
  member: Membership;
  viewer: Viewer;
}

/**
 * Finds the task and rechecks the caller's membership of its campaign. A task outside the
 * caller's campaigns, or one its visibility mode hides, is NOT_FOUND: the caller learns nothing
 * about it, not even which campaign holds it. `mustSee: false` leaves the visibility check to
 * the caller (task_claim, which reports a task someone else took as TASK_ALREADY_CLAIMED).
 * `campaignId`, when the caller named one, must be the task's.
 */
export async function taskForMember(
  ex: Executor,
  caller: Caller,
  taskId: string,
  opts: { forChange?: boolean; forNew?: boolean; mustSee?: boolean; campaignId?: string | undefined } = {},
): Promise<TaskAccess> {
  const [row] = await taskWithMember(ex, { taskId, agentId: caller.agent.id });
  const task = row?.task;
  // Task tools take campaign_id too (SPEC Campaign: every campaign tool accepts it). A task
  // outside the campaign named is the same NOT_FOUND as a hidden one, so trying campaign ids
  // tells nobody which campaign holds a task.
  if (!task || (opts.campaignId !== undefined && task.campaignId !== opts.campaignId))
    throw taskNotFound(taskId);
  let member: Membership;
  try {
    member = checkMembership(caller, task.campaignId, row, {
      forChange: opts.forChange ?? false,
      forNew: opts.forNew ?? false,
    });
  } catch (err) {
    if (err instanceof DomainError && err.code === 'NOT_A_MEMBER') throw taskNotFound(taskId);
    throw err;
  }
  const viewer = viewerOf(member);
  // The campaign's own tasks are all visible unless the mode restricts the caller: no statement.
  if (opts.mustSee !== false && !seesAllTasks(viewer) && !(await isVisible(ex, viewer, taskId)))
    throw taskNotFound(taskId);
  return { task, member, viewer };
}

/** The task, its campaign and the caller's membership there: one statement, prepared (every task tool reads it). */
const taskWithMember = preparedStatement('cairn_task_with_member', (ex) =>
  ex
    .select({ task: tasks, campaign: campaigns, role: campaignMembers.role, status: campaignMembers.status })
    .from(tasks)
    .innerJoin(campaigns, eq(campaigns.id, tasks.campaignId))
    .leftJoin(campaignMembers, memberOn(sql.placeholder('agentId')))
    .where(eq(tasks.id, sql.placeholder('taskId'))),
);

/** Refuses unless `agentId` is an active member of the campaign (assignees and delegates). */
export async function requireActiveAgent(
  ex: Executor,
  campaignId: string,
  agentId: string,
  asker?: Membership,
): Promise<void> {
  const [found] = await activeMembers(ex, campaignId, [agentId]);
  // Under BLIND_EXPERIMENT a participant does not learn who else participates (issue 40): naming
  // another participant is answered exactly as naming an agent outside the campaign.
  const hidden =
    asker !== undefined &&
    !seesOtherWorkers(viewerOf(asker)) &&
    found?.role === 'PARTICIPANT' &&
    found.agentId !== asker.agentId;
  if (!found || hidden) {
    throw new DomainError(
      'NOT_A_MEMBER',
      `Agent ${agentId} is not an active member of this campaign.`,
      { campaign_id: campaignId, assignee_id: agentId },
      {
        next: 'Name an active member (agent_directory lists them), or invite the agent first.',
        alternatives: [
          {
            tool: 'agent_directory',
            action: 'List the active members.',
            arguments: { campaign_id: campaignId },
          },
        ],
      },
    );
  }
}

/** The statuses a task can be edited or assigned in (with no open lease and no submission). */
export const CHANGEABLE = new Set(['OPEN', 'BLOCKED']);

export function notEditable(task: TaskRow, reason: string, next?: string): DomainError {
  return new DomainError(
    'TASK_NOT_EDITABLE',
    `Task ${task.id} cannot be changed now: ${reason}.`,
    { task_id: task.id, status: task.status, reason },
    next ? { next } : {},
  );
}

export function versionConflict(task: TaskRow, expected: number): DomainError {
  return new DomainError(
    'VERSION_CONFLICT',
    `Task ${task.id} is at version ${task.version}, not ${expected}: it changed since you read it.`,
    { task_id: task.id, current_version: task.version, expected_version: expected },
    {
      next: `Read the task again (task_get), then repeat the change with expected_version ${task.version} if it still applies.`,
      alternatives: [
        { tool: 'task_get', action: 'Read the task as it is now.', arguments: { task_id: task.id } },
        {
          tool: 'task_history',
          action: 'See what changed since your version.',
          arguments: { task_id: task.id },
        },
      ],
    },
  );
}
