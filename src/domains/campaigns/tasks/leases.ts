import { and, asc, eq, gt, inArray, isNull, lte, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { lockedOne } from '../../../storage/locked.ts';
import { type Actor, appendEvent } from '../core/ledger.ts';
import { recordHistory } from '../core/task-repo.ts';
import { leaseNotFound, taskNotFound } from '../errors.ts';
import { taskLeases, tasks } from '../tables.ts';

/**
 * Claim leases (SPEC Task.lease, States and transitions). A lease is current iff it has not
 * ended, its execution_deadline is still ahead, and the caller holds it. A passed deadline is
 * treated as ended everywhere, even before anything writes ended_at: correctness never waits
 * for the sweeper, which only makes expiries visible on the ledger.
 */

export type LeaseRow = typeof taskLeases.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;

/** How a lease ended (task_leases.end_reason). */
export type LeaseEndReason =
  | 'RELEASED'
  | 'EXPIRED'
  | 'SUBMITTED'
  | 'DELEGATED'
  | 'CANCELLED'
  | 'MEMBERSHIP_ENDED'
  | 'HOLDER_INACTIVE';

/** Why a lease is not current, as LEASE_NOT_CURRENT reports it in details.reason. */
export type NotCurrentReason = LeaseEndReason | 'NOT_YOURS';

/** Why `lease` is not current for `agentId` at `now`; null when it is current. */
export function notCurrentReason(lease: LeaseRow, agentId: string, now: Date): NotCurrentReason | null {
  if (lease.agentId !== agentId) return 'NOT_YOURS';
  if (lease.endedAt) return (lease.endReason as LeaseEndReason | null) ?? 'RELEASED';
  if (lease.executionDeadline.getTime() <= now.getTime()) return 'EXPIRED';
  return null;
}

/** Joins a task row (`tasks`) to its live lease, for reads that take it with the task in one statement. */
export function liveLeaseOn(now: Date | Placeholder): SQL {
  return and(
    eq(taskLeases.taskId, tasks.id),
    isNull(taskLeases.endedAt),
    gt(taskLeases.executionDeadline, now),
  ) as SQL;
}

/** The open lease of a task whose deadline is still ahead, whoever holds it. */
export async function liveLeaseOf(ex: Executor, taskId: string, now: Date): Promise<LeaseRow | null> {
  const [row] = await ex
    .select()
    .from(taskLeases)
    .where(
      and(eq(taskLeases.taskId, taskId), isNull(taskLeases.endedAt), gt(taskLeases.executionDeadline, now)),
    );
  return row ?? null;
}

/**
 * The agent's current leases, oldest claim first (reading uses the only one when fetch_text
 * names no task). Leases past their deadline are left out even if not yet ended.
 */
export async function currentLeases(
  ex: Executor,
  agentId: string,
  now: Date,
): Promise<Array<{ leaseId: string; taskId: string; campaignId: string; executionDeadline: Date }>> {
  return ex
    .select({
      leaseId: taskLeases.id,
      taskId: taskLeases.taskId,
      campaignId: taskLeases.campaignId,
      executionDeadline: taskLeases.executionDeadline,
    })
    .from(taskLeases)
    .where(
      and(eq(taskLeases.agentId, agentId), isNull(taskLeases.endedAt), gt(taskLeases.executionDeadline, now)),
    )
    .orderBy(asc(taskLeases.claimedAt))
    .limit(100);
}

/**
 * The caller's current lease `leaseId` on `taskId`, with the task row locked FOR UPDATE until the
 * transaction ends, so nothing else (a claim, an expiry, a second submission) moves the task
 * meanwhile. Throws NOT_FOUND for an unknown task or a lease of another task, and
 * LEASE_NOT_CURRENT (details.reason EXPIRED, RELEASED, SUBMITTED, DELEGATED or NOT_YOURS)
 * otherwise. Call it inside the transaction of the change it guards.
 */
export async function requireCurrentLease(
  ex: Executor,
  agentId: string,
  taskId: string,
  leaseId: string,
  now: Date,
): Promise<{ lease: LeaseRow; task: TaskRow }> {
  // Task row first: every writer of the area locks the task before its lease (and the
  // campaign row last, in appendEvent), so two of them can never wait on each other.
  const task = await lockedOne(ex.select().from(tasks).where(eq(tasks.id, taskId)), () =>
    taskNotFound(taskId),
  );
  return { lease: await requireLeaseHeld(ex, agentId, taskId, leaseId, now), task };
}

/**
 * The same check as requireCurrentLease without locking anything: for work that must not hold
 * the task row while it runs (a submission's checks), followed by requireCurrentLease.
 */
export async function requireLeaseHeld(
  ex: Executor,
  agentId: string,
  taskId: string,
  leaseId: string,
  now: Date,
): Promise<LeaseRow> {
  const [lease] = await ex
    .select()
    .from(taskLeases)
    .where(and(eq(taskLeases.id, leaseId), eq(taskLeases.taskId, taskId)));
  if (!lease) throw leaseNotFound(taskId, leaseId);
  const reason = notCurrentReason(lease, agentId, now);
  if (reason) throw leaseNotCurrent(taskId, leaseId, reason);
  return lease;
}

export function leaseNotCurrent(taskId: string, leaseId: string, reason: NotCurrentReason): DomainError {
  const why: Record<NotCurrentReason, string> = {
    EXPIRED: 'its execution_deadline has passed',
    RELEASED: 'it was released',
    SUBMITTED: 'it ended with a submitted result',
    DELEGATED: 'it was handed over with task_delegate',
    CANCELLED: "the campaign's owner cancelled the task",
    MEMBERSHIP_ENDED: 'your membership of its campaign ended',
    HOLDER_INACTIVE: 'your owner deactivated or suspended this identity',
    NOT_YOURS: 'another agent holds it',
  };
  return new DomainError(
    'LEASE_NOT_CURRENT',
    `Lease ${leaseId} is not current: ${why[reason]}.`,
    { task_id: taskId, lease_id: leaseId, reason },
    // A cancelled task cannot be claimed afresh: the move is another task.
    reason === 'CANCELLED'
      ? {
          next: 'The task is cancelled and nothing more is done on it; pick another open task with task_list.',
          alternatives: [
            { tool: 'task_list', action: 'Find another open task.', arguments: { status: 'OPEN' } },
          ],
        }
      : {},
  );
}

/**
 * Ends leases whose execution_deadline has passed (end_reason EXPIRED) and reopens their tasks,
 * clearing a reservation held by the expired worker so another eligible agent may claim (SPEC:
 * "another eligible agent may claim"). Each expiry bumps the task version and writes an EXPIRE
 * history entry and a TASK_LEASE_EXPIRED ledger event by SYSTEM. Nothing the worker saved is
 * touched. With `taskId` it expires only that task's lease and waits for the task's lock (the
 * lazy path inside claims and edits); without, it skips tasks another transaction holds (the
 * sweeper comes back for them). `campaignId` limits it to one campaign. Returns the expired leases.
 */
export async function expireDueLeases(
  ex: Executor,
  now: Date,
  opts: { taskId?: string; campaignId?: string; limit?: number } = {},
): Promise<LeaseRow[]> {
  return endLeasesWhere(ex, now, {
    where: and(
      lte(taskLeases.executionDeadline, now),
      opts.taskId ? eq(taskLeases.taskId, opts.taskId) : undefined,
      opts.campaignId ? eq(taskLeases.campaignId, opts.campaignId) : undefined,
    ) as SQL,
    endReason: 'EXPIRED',
    historyKind: 'EXPIRE',
    event: { kind: 'TASK_LEASE_EXPIRED', actor: { role: 'SYSTEM' } },
    limit: opts.limit ?? 100,
    wait: opts.taskId !== undefined,
  });
}

/**
 * Ends the open leases of their holders when the holder can no longer work on them: its
 * membership ended (MEMBERSHIP_ENDED; `agentId` and `campaignId`, in the caller's transaction)
 * or the identity was deactivated, suspended or revoked (HOLDER_INACTIVE; the sweeper, with
 * `inactiveHolder`). Each task reopens as at an expiry, with a RELEASE history entry and a
 * TASK_RELEASED event naming the reason. Returns the leases ended.
 */
export async function endLeasesOfHolders(
  ex: Executor,
  now: Date,
  opts: {
    where: SQL;
    reason: 'MEMBERSHIP_ENDED' | 'HOLDER_INACTIVE';
    actor: Actor;
    wait: boolean;
  },
): Promise<LeaseRow[]> {
  return endLeasesWhere(ex, now, {
    where: opts.where,
    endReason: opts.reason,
    historyKind: 'RELEASE',
    event: { kind: 'TASK_RELEASED', actor: opts.actor, reason: opts.reason },
    limit: 200,
    wait: opts.wait,
  });
}

/**
 * Ends the open leases `where` selects (at most `limit`) and reopens their CLAIMED tasks. Tasks
 * are locked first in id order (`wait`: for the lock; else tasks another transaction holds are
 * skipped, for a sweeper to come back to), then their leases, then the ledger, campaign by
 * campaign in id order: the area's lock order, so two of these never wait on each other.
 */
async function endLeasesWhere(
  ex: Executor,
  now: Date,
  opts: {
    where: SQL;
    endReason: LeaseEndReason;
    historyKind: 'EXPIRE' | 'RELEASE';
    event: { kind: string; actor: Actor; reason?: string };
    limit: number;
    wait: boolean;
  },
): Promise<LeaseRow[]> {
  const open = and(isNull(taskLeases.endedAt), opts.where);
  const candidates = await ex
    .select({ taskId: taskLeases.taskId })
    .from(taskLeases)
    .where(open)
    .orderBy(asc(taskLeases.executionDeadline))
    .limit(Math.min(Math.max(opts.limit, 1), 1_000));
  if (candidates.length === 0) return [];

  const ids = [...new Set(candidates.map((c) => c.taskId))].sort();
  const lockQuery = ex
    .select({ id: tasks.id })
    .from(tasks)
    .where(inArray(tasks.id, ids))
    .orderBy(asc(tasks.id));
  const locked = opts.wait
    ? await lockQuery.for('update')
    : await lockQuery.for('update', { skipLocked: true });
  if (locked.length === 0) return [];

  // Conditional: a lease another transaction ended meanwhile is not ended twice.
  const ended = await ex
    .update(taskLeases)
    .set({ endedAt: now, endReason: opts.endReason })
    .where(
      and(
        open,
        inArray(
          taskLeases.taskId,
          locked.map((t) => t.id),
        ),
      ),
    )
    .returning();

  const events: Array<{ campaignId: string; taskId: string; version: number }> = [];
  for (const lease of ended) {
    const [prior] = await ex
      .select({ assigneeId: tasks.assigneeId })
      .from(tasks)
      .where(eq(tasks.id, lease.taskId));
    const [task] = await ex
      .update(tasks)
      .set({
        status: 'OPEN',
        version: sql`${tasks.version} + 1`,
        // The worker's reservation ends with its lease; anyone else's stays.
        assigneeId: sql`case when ${tasks.assigneeId} = ${lease.agentId} then null else ${tasks.assigneeId} end`,
        updatedAt: now,
      })
      .where(and(eq(tasks.id, lease.taskId), eq(tasks.status, 'CLAIMED')))
      .returning({ version: tasks.version, assigneeId: tasks.assigneeId });
    if (!task) continue;
    await recordHistory(ex, {
      taskId: lease.taskId,
      agentId: null,
      kind: opts.historyKind,
      before: {
        status: 'CLAIMED',
        assignee_id: prior?.assigneeId ?? null,
        execution_deadline: lease.executionDeadline.toISOString(),
      },
      after: {
        status: 'OPEN',
        assignee_id: task.assigneeId,
        ...(opts.event.reason ? { reason: opts.event.reason } : {}),
      },
      version: task.version,
      now,
    });
    events.push({ campaignId: lease.campaignId, taskId: lease.taskId, version: task.version });
  }
  // Ledger last: it locks campaign rows, which every writer takes after its task rows; in id
  // order, so two sweepers on different replicas never wait on each other's campaigns.
  events.sort((a, b) => (a.campaignId < b.campaignId ? -1 : a.campaignId > b.campaignId ? 1 : 0));
  for (const e of events) {
    await appendEvent(
      ex,
      e.campaignId,
      {
        kind: opts.event.kind,
        actor: opts.event.actor,
        taskId: e.taskId,
        // The worker is not named: under BLIND_EXPERIMENT other participants must not learn it.
        payload: {
          task_id: e.taskId,
          status: 'OPEN',
          version: e.version,
          ...(opts.event.reason ? { reason: opts.event.reason } : {}),
        },
      },
      now,
    );
  }
  return ended;
}
