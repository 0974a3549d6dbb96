import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import { appendEvent } from '../core/ledger.ts';
import type { Membership } from '../core/member.ts';
import { recordHistory } from '../core/task-repo.ts';
import { findCampaign } from '../membership/members-repo.ts';
import { taskLeases, tasks } from '../tables.ts';
import { boards, boardTasks, publicEntries } from './tables.ts';

/**
 * A public entry once taken (docs/boards.md): how long it lasts, the actions it allows, the check
 * on every call that it is still live (or why it is over), and its ending, one entry at a time or
 * all of a board's when the owner withdraws the board or takes tasks off it.
 */

export const ENTRY_HOURS = 24;

export type EntryRow = typeof publicEntries.$inferSelect;

/** The standing a public taker acts with: a participant of that campaign for this one task. */
export interface EntryStanding {
  entry: EntryRow;
  member: Membership;
}

/** The actions of a public entry (SPEC public_task_work), and nothing else. */
export const ENTRY_ACTIONS = [
  'describe_action',
  'task_evidence',
  'evidence_get',
  'task_complete',
  'release',
  'notes',
  'renew_lease',
] as const;
export type EntryAction = (typeof ENTRY_ACTIONS)[number];

/**
 * The caller's live entry, or the refusal that says why it is over. Checked on every call, so
 * a withdrawn board or a task taken off it stops access at once.
 */
export async function liveEntry(
  ex: Executor,
  caller: Caller,
  entryId: string,
  now: Date,
): Promise<EntryStanding> {
  const [entry] = await ex
    .select()
    .from(publicEntries)
    .where(and(eq(publicEntries.id, entryId), eq(publicEntries.agentId, caller.agent.id)));
  if (!entry) {
    throw new DomainError(
      'NOT_FOUND',
      `No public entry ${entryId} of yours.`,
      { public_entry_id: entryId },
      { next: 'Take a task from a public board with public_task_take; its answer names your entry.' },
    );
  }
  const [board] = await ex.select().from(boards).where(eq(boards.slug, entry.boardSlug));
  const [listed] = await ex
    .select({ ref: boardTasks.taskRef })
    .from(boardTasks)
    .where(and(eq(boardTasks.boardSlug, entry.boardSlug), eq(boardTasks.taskId, entry.taskId)));
  const [lease] = await ex.select().from(taskLeases).where(eq(taskLeases.id, entry.leaseId));
  const ended =
    entry.endReason ??
    (now >= entry.expiresAt
      ? 'EXPIRED'
      : board?.withdrawnAt
        ? 'BOARD_WITHDRAWN'
        : listed?.ref !== entry.taskRef
          ? 'TASK_REMOVED'
          : !lease || lease.endedAt || now >= lease.executionDeadline
            ? 'LEASE_ENDED'
            : null);
  if (ended) {
    throw new DomainError(
      'PUBLIC_ENTRY_ENDED',
      `Public entry ${entryId} has ended (${ENDED_WORDS[ended] ?? ended}).`,
      { public_entry_id: entryId, reason: ended, expires_at: entry.expiresAt.toISOString() },
    );
  }
  const campaign = await findCampaign(ex, entry.campaignId);
  if (!campaign) throw new Error(`campaign ${entry.campaignId} of entry ${entry.id} vanished`);
  return { entry, member: { campaign, agentId: entry.agentId, role: 'PARTICIPANT' } };
}

const ENDED_WORDS: Record<string, string> = {
  EXPIRED: `its ${ENTRY_HOURS} hours are over`,
  COMPLETED: 'its task was done',
  RELEASED: 'you released the task',
  BOARD_WITHDRAWN: 'the owner withdrew the board',
  TASK_REMOVED: 'the owner took the task off the board',
  LEASE_ENDED:
    "its lease ended: the task's time budget ran out; take the task again if it is still available",
};

export async function endEntry(ex: Executor, entryId: string, reason: string, now: Date): Promise<void> {
  await ex
    .update(publicEntries)
    .set({ endedAt: now, endReason: reason })
    .where(and(eq(publicEntries.id, entryId), isNull(publicEntries.endedAt)));
}

/**
 * Ends the live entries of a board (all of them, or those of some tasks) when the owner withdraws
 * the board or takes tasks off it: each entry's lease ends and its task reopens, in the owner's
 * transaction, so access stops at once and the task can be taken again.
 */
export async function endEntriesOf(
  ex: Executor,
  boardSlug: string,
  taskIds: string[] | null,
  reason: 'BOARD_WITHDRAWN' | 'TASK_REMOVED',
  now: Date,
): Promise<void> {
  if (taskIds?.length === 0) return;
  const ended = await ex
    .update(publicEntries)
    .set({ endedAt: now, endReason: reason })
    .where(
      and(
        eq(publicEntries.boardSlug, boardSlug),
        isNull(publicEntries.endedAt),
        gt(publicEntries.expiresAt, now),
        taskIds ? inArray(publicEntries.taskId, taskIds) : undefined,
      ),
    )
    .returning();
  for (const entry of ended) {
    const [lease] = await ex
      .update(taskLeases)
      .set({ endedAt: now, endReason: 'WITHDRAWN' })
      .where(and(eq(taskLeases.id, entry.leaseId), isNull(taskLeases.endedAt)))
      .returning();
    if (!lease) continue;
    const [task] = await ex
      .update(tasks)
      .set({ status: 'OPEN', version: sql`${tasks.version} + 1`, updatedAt: now })
      .where(and(eq(tasks.id, entry.taskId), eq(tasks.status, 'CLAIMED')))
      .returning();
    if (!task) continue;
    await recordHistory(ex, {
      taskId: task.id,
      agentId: null,
      kind: 'RELEASE',
      before: { status: 'CLAIMED' },
      after: { status: 'OPEN', reason, public_entry_id: entry.id },
      version: task.version,
      now,
    });
    await appendEvent(
      ex,
      task.campaignId,
      {
        kind: 'TASK_RELEASED',
        actor: { role: 'SYSTEM' },
        taskId: task.id,
        subjectAgentId: entry.agentId,
        payload: {
          task_id: task.id,
          status: 'OPEN',
          reason,
          public_entry_id: entry.id,
          version: task.version,
        },
      },
      now,
    );
  }
}
