import { and, desc, eq, gt, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { lockedOne } from '../../../storage/locked.ts';
import { involvedTaskIds, tasksVisible, type Viewer } from '../audience.ts';
import { taskNotFound } from '../errors.ts';
import { taskHistory, taskLeases, taskSubmissions, tasks } from '../tables.ts';

/** SQL for the task tables (tasks, task_history, and reads of task_leases and task_submissions). */

export type TaskRow = typeof tasks.$inferSelect;
export type HistoryRow = typeof taskHistory.$inferSelect;

/** Task statuses (docs/campaign-tasks.md). */
export const TASK_STATUSES = ['OPEN', 'CLAIMED', 'SUBMITTED', 'VERIFIED', 'BLOCKED', 'CANCELLED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export type HistoryKind =
  | 'PUBLISH'
  | 'CLAIM'
  | 'RELEASE'
  | 'EXPIRE'
  | 'EDIT'
  | 'ASSIGN'
  | 'DELEGATE'
  | 'SUBMIT'
  | 'RETURN'
  | 'CANCEL';

/**
 * Who a history entry names: an agent id, `owner:<owner id>` for the owner of record in the
 * console, or null for Cairn itself (an expiry). The same form is used for tasks.created_by.
 */
export const ownerActorId = (ownerId: string) => `owner:${ownerId}`;

export interface HistoryEntry {
  taskId: string;
  agentId: string | null;
  kind: HistoryKind;
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  version: number;
  now: Date;
}

/** Appends one dated before/after entry to a task's history (task_history). */
export async function recordHistory(ex: Executor, entry: HistoryEntry): Promise<void> {
  await historyInsert(ex, entry);
}

/** The insert of a history entry, not yet sent (to travel with the ledger event: appendEvent's `along`). */
export function historyInsert(ex: Executor, entry: HistoryEntry) {
  return ex.insert(taskHistory).values({
    id: newId('thx', entry.now),
    taskId: entry.taskId,
    agentId: entry.agentId,
    kind: entry.kind,
    before: entry.before,
    after: entry.after,
    version: entry.version,
    createdAt: entry.now,
  });
}

/** The task's row, whoever asks; null when there is none. */
export async function findTask(ex: Executor, taskId: string): Promise<TaskRow | null> {
  const [row] = await ex.select().from(tasks).where(eq(tasks.id, taskId));
  return row ?? null;
}

/** Whether the viewer may see the task (audience.tasksVisible). */
export async function isVisible(ex: Executor, viewer: Viewer, taskId: string): Promise<boolean> {
  const [row] = await ex
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(eq(tasks.id, taskId), tasksVisible(viewer)));
  return row !== undefined;
}

/** The task's row locked FOR UPDATE until the transaction ends; NOT_FOUND when there is none. */
export async function lockTask(ex: Executor, taskId: string): Promise<TaskRow> {
  return lockedOne(ex.select().from(tasks).where(eq(tasks.id, taskId)), () => taskNotFound(taskId));
}

/** The lease that has not ended, past its deadline or not (what blocks edits until it is expired). */
export async function openLeaseOf(ex: Executor, taskId: string) {
  const [row] = await ex
    .select()
    .from(taskLeases)
    .where(and(eq(taskLeases.taskId, taskId), isNull(taskLeases.endedAt)));
  return row ?? null;
}

export async function hasSubmission(ex: Executor, taskId: string): Promise<boolean> {
  const [row] = await ex
    .select({ id: taskSubmissions.id })
    .from(taskSubmissions)
    .where(eq(taskSubmissions.taskId, taskId))
    .limit(1);
  return row !== undefined;
}

export interface TaskFilter {
  status?: TaskStatus | undefined;
  /** Created by, reserved for, or currently held by this agent. */
  mineOf?: string | undefined;
  /** Tasks created before this one (ids sort by creation). */
  beforeId?: string | undefined;
}

/** One page of the tasks the viewer may see, newest first; `limit + 1` rows to tell if more follow. */
export async function listTasks(
  ex: Executor,
  viewer: Viewer,
  filter: TaskFilter,
  limit: number,
  now: Date,
): Promise<TaskRow[]> {
  const where: SQL[] = [tasksVisible(viewer)];
  if (filter.status) where.push(eq(tasks.status, filter.status));
  if (filter.beforeId) where.push(lt(tasks.id, filter.beforeId));
  if (filter.mineOf) {
    const me = filter.mineOf;
    where.push(
      or(
        eq(tasks.createdBy, me),
        eq(tasks.assigneeId, me),
        sql`exists (select 1 from ${taskLeases} where ${taskLeases.taskId} = ${tasks.id}
          and ${taskLeases.agentId} = ${me} and ${taskLeases.endedAt} is null
          and ${taskLeases.executionDeadline} > ${now})`,
      ) as SQL,
    );
  }
  return ex
    .select()
    .from(tasks)
    .where(and(...where))
    .orderBy(desc(tasks.id))
    .limit(limit + 1);
}

/** Live leases (not ended, deadline ahead) of the given tasks, by task id. */
export async function liveLeasesOf(ex: Executor, taskIds: string[], now: Date) {
  if (taskIds.length === 0) return new Map<string, typeof taskLeases.$inferSelect>();
  const rows = await ex
    .select()
    .from(taskLeases)
    .where(
      and(
        sql`${taskLeases.taskId} in ${taskIds}`,
        isNull(taskLeases.endedAt),
        gt(taskLeases.executionDeadline, now),
      ),
    );
  return new Map(rows.map((r) => [r.taskId, r]));
}

/** One page of a task's history, newest first; `limit + 1` rows to tell if more follow. */
export async function historyPage(
  ex: Executor,
  taskId: string,
  limit: number,
  beforeId?: string,
): Promise<HistoryRow[]> {
  return ex
    .select()
    .from(taskHistory)
    .where(and(eq(taskHistory.taskId, taskId), beforeId ? lt(taskHistory.id, beforeId) : undefined))
    .orderBy(desc(taskHistory.id))
    .limit(limit + 1);
}

/** Whether the viewer is involved in the task: created it, is reserved for it, or held a lease on it. */
export async function isInvolved(ex: Executor, viewer: Viewer, taskId: string): Promise<boolean> {
  if (viewer.agentId === null) return true;
  const rows = await ex
    .select({ id: tasks.id })
    .from(tasks)
    .where(
      and(
        eq(tasks.id, taskId),
        sql`${tasks.id} in ${involvedTaskIds({ ...viewer, agentId: viewer.agentId })}`,
      ),
    );
  return rows.length > 0;
}
