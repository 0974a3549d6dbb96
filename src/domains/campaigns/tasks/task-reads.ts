import { and, asc, eq, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Executor } from '../../../storage/database.ts';
import { preparedStatement } from '../../../storage/prepared.ts';
import type { Caller } from '../../identity/index.ts';
import { seesOtherWorkers, submissionScope, submissionsVisible, type Viewer, viewerOf } from '../audience.ts';
import type { Membership } from '../core/member.ts';
import { CHANGEABLE, taskForMember } from '../core/task-access.ts';
import { historyPage, isInvolved, listTasks, liveLeasesOf, type TaskStatus } from '../core/task-repo.ts';
import { pendingApprovalOf, rewardsOfTasks } from '../rewards/escrow.ts';
import { presentReward, rewardSummary } from '../rewards/reward-present.ts';
import { taskRewards } from '../rewards/tables.ts';
import { taskLeases, taskSubmissions, tasks } from '../tables.ts';
import { liveLeaseOn } from './leases.ts';
import { presentHistory, presentTask, presentTaskSummary } from './task-present.ts';

/** Reading tasks: task_get, task_list, task_history. Each filters by the campaign's visibility mode. */

/** task_get: the task with its lease and results as the caller may see them; NOT_FOUND when hidden. */
export async function getTask(
  ex: Executor,
  caller: Caller,
  taskId: string,
  now: Date,
  baseUrl: string,
  campaignId?: string,
) {
  const { task, member, viewer } = await taskForMember(ex, caller, taskId, { campaignId });
  const { lease, reward, submissions, anySubmission } = await leaseRewardAndSubmissions(
    ex,
    viewer,
    taskId,
    now,
  );
  // can_edit answers "would task_edit accept a change from me now" (a lapsed lease is expired on edit).
  const canEdit =
    task.createdBy === member.agentId &&
    CHANGEABLE.has(task.status) &&
    lease === null &&
    !isFunded(reward?.status) &&
    !anySubmission;
  const shown = presentTask(task, viewer, lease, submissions, canEdit, now);
  if (!reward) return { ...shown, reward: null };
  const pending = reward.status === 'RELEASE_REQUESTED' ? await pendingApprovalOf(ex, taskId) : null;
  // Who was paid is about a result: hidden where the mode hides other members' results.
  const payeeShown =
    reward.paidToAgentId === caller.agent.id ||
    (seesOtherWorkers(viewer) &&
      (viewer.campaign.visibility !== 'OWNER_ONLY_RESULTS' || viewer.role === 'OWNER'));
  return { ...shown, reward: presentReward(reward, baseUrl, pending, payeeShown) };
}

/**
 * The task's live lease, its reward, the first 50 submissions the viewer may see (oldest first)
 * and whether it has any submission at all, in one statement (docs/performance.md, "Round
 * trips"): a row per visible submission, or one row without, each carrying the lease and reward
 * (at most one of each per task). Prepared for the viewers who see all submissions or their own;
 * built for each call for a TASK_SCOPED participant, whose view depends on its involvement.
 */
async function leaseRewardAndSubmissions(ex: Executor, viewer: Viewer, taskId: string, now: Date) {
  const scope = submissionScope(viewer);
  // A placeholder's value reaches the driver as it is (no column encoding): the time as ISO text.
  const values = { taskId, now: now.toISOString(), agentId: viewer.agentId };
  const rows =
    scope === 'ALL'
      ? await heldSeeingAll(ex, values)
      : scope === 'OWN'
        ? await heldSeeingOwn(ex, values)
        : await heldQuery(ex, submissionsVisible(viewer), { taskId, now });
  const first = rows[0];
  return {
    lease: first?.lease ?? null,
    reward: first?.reward ?? null,
    submissions: rows.flatMap((r) => (r.submission ? [r.submission] : [])),
    anySubmission: first?.anySubmission === true,
  };
}

/** The statement of leaseRewardAndSubmissions, with the submissions the viewer may see. */
function heldQuery(
  ex: Executor,
  visible: SQL,
  at: { taskId: string | Placeholder; now: Date | Placeholder },
) {
  return ex
    .select({
      lease: taskLeases,
      reward: taskRewards,
      submission: {
        id: taskSubmissions.id,
        agentId: taskSubmissions.agentId,
        summary: taskSubmissions.summary,
        claimedOutcome: taskSubmissions.claimedOutcome,
        verifiedStatus: taskSubmissions.verifiedStatus,
        createdAt: taskSubmissions.createdAt,
      },
      anySubmission: sql<boolean>`exists (select 1 from ${taskSubmissions} where ${taskSubmissions.taskId} = ${tasks.id})`,
    })
    .from(tasks)
    .leftJoin(taskLeases, liveLeaseOn(at.now))
    .leftJoin(taskRewards, eq(taskRewards.taskId, tasks.id))
    .leftJoin(taskSubmissions, and(eq(taskSubmissions.taskId, tasks.id), visible))
    .where(eq(tasks.id, at.taskId))
    .orderBy(asc(taskSubmissions.createdAt))
    .limit(SUBMISSIONS_SHOWN);
}

const placeholders = { taskId: sql.placeholder('taskId'), now: sql.placeholder('now') };
const heldSeeingAll = preparedStatement('cairn_task_get_all', (ex) => heldQuery(ex, sql`true`, placeholders));
const heldSeeingOwn = preparedStatement('cairn_task_get_own', (ex) =>
  heldQuery(ex, eq(taskSubmissions.agentId, sql.placeholder('agentId')), placeholders),
);

/** Submissions task_get shows, oldest first. */
const SUBMISSIONS_SHOWN = 50;

/** A funded reward fixes the task's terms: it cannot be edited any more (SPEC States and transitions). */
export function isFunded(status: string | undefined): boolean {
  return status !== undefined && !['AWAITING_FUNDING', 'CANCELLED'].includes(status);
}

export interface ListInput {
  status?: TaskStatus | undefined;
  mine?: boolean | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** task_list: the campaign's tasks the caller may see, newest first, one signed page at a time. */
export async function listTasksFor(ex: Executor, m: Membership, input: ListInput, secret: string, now: Date) {
  const viewer = viewerOf(m);
  // The cursor is bound to the caller, the campaign and the filters: it cannot page another query.
  const binding = `task_list:${m.agentId}:${m.campaign.id}:${input.status ?? '*'}:${input.mine ? 'mine' : 'all'}`;
  const beforeId = input.cursor
    ? openCursor<{ before: string }>(secret, binding, input.cursor).before
    : undefined;
  const limit = input.limit ?? 50;
  const rows = await listTasks(
    ex,
    viewer,
    { status: input.status, mineOf: input.mine ? m.agentId : undefined, beforeId },
    limit,
    now,
  );
  const { rows: page, next } = cutPage(rows, limit, (last) =>
    signCursor(secret, binding, { before: last.id }),
  );
  const leases = await liveLeasesOf(
    ex,
    page.map((t) => t.id),
    now,
  );
  const rewards = await rewardsOfTasks(
    ex,
    page.map((t) => t.id),
  );
  return {
    campaign_id: m.campaign.id,
    tasks: page.map((t) => {
      const reward = rewards.get(t.id);
      return {
        ...presentTaskSummary(t, viewer, leases.get(t.id) ?? null),
        reward: reward ? rewardSummary(reward) : null,
      };
    }),
    next_cursor: next,
  };
}

/** task_history: dated before/after entries of a task the caller may see, newest first. */
export async function taskHistoryFor(
  ex: Executor,
  caller: Caller,
  input: {
    taskId: string;
    campaignId?: string | undefined;
    limit?: number | undefined;
    cursor?: string | undefined;
  },
  secret: string,
) {
  const { viewer } = await taskForMember(ex, caller, input.taskId, { campaignId: input.campaignId });
  const binding = `task_history:${caller.agent.id}:${input.taskId}`;
  const beforeId = input.cursor
    ? openCursor<{ before: string }>(secret, binding, input.cursor).before
    : undefined;
  const limit = input.limit ?? 50;
  const rows = await historyPage(ex, input.taskId, limit, beforeId);
  const page = cutPage(rows, limit, (last) => signCursor(secret, binding, { before: last.id }));
  const involved = await isInvolved(ex, viewer, input.taskId);
  return {
    task_id: input.taskId,
    entries: page.rows.map((r) => presentHistory(r, viewer, involved)),
    next_cursor: page.next,
  };
}
