import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import { appendEvent } from '../core/ledger.ts';
import { activeMembers, type Membership } from '../core/member.ts';
import { recordHistory } from '../core/task-repo.ts';
import { findCampaign } from '../membership/members-repo.ts';
import { taskLeases, tasks } from '../tables.ts';
import { type LostClaim, tryClaim } from '../tasks/task-claims.ts';
import { publicConditions, unlistable } from './board-rules.ts';
import { boards, boardTasks, publicEntries } from './tables.ts';

/**
 * Open pickup (SPEC "What the service does" 8, Public task entry; docs/boards.md): any active
 * identity that is not a member of the campaign takes a listed task by its board and task_ref,
 * and gets a public entry with a lease. The entry is the taker's only standing: it reaches that
 * one task, for 24 hours at most, through public_task_work's few actions.
 */

export const ENTRY_HOURS = 24;

export type EntryRow = typeof publicEntries.$inferSelect;

/** The standing a public taker acts with: a participant of that campaign for this one task. */
export interface EntryStanding {
  entry: EntryRow;
  member: Membership;
}

export async function takePublicTask(
  ex: Executor,
  caller: Caller,
  input: { board: string; taskRef: string },
  now: Date,
) {
  const me = caller.agent.id;
  const [listing] = await ex
    .select({ board: boards, taskId: boardTasks.taskId })
    .from(boardTasks)
    .innerJoin(boards, eq(boards.slug, boardTasks.boardSlug))
    .where(
      and(
        eq(boardTasks.boardSlug, input.board),
        eq(boardTasks.taskRef, input.taskRef),
        isNull(boards.withdrawnAt),
      ),
    );
  if (!listing) {
    throw new DomainError(
      'NOT_FOUND',
      `No task ${input.taskRef} on a published board ${input.board}.`,
      { board: input.board, task_ref: input.taskRef },
      {
        next: `Read the board's tasks and refs at GET /v1/public/boards/${input.board} (or list boards at GET /v1/public/boards).`,
      },
    );
  }
  const campaign = await findCampaign(ex, listing.board.campaignId);
  if (campaign?.status === 'STOPPING') {
    throw new DomainError(
      'CAMPAIGN_STOPPING',
      'The campaign behind this board is stopping: its tasks cannot be taken now.',
      { board: input.board },
      {
        next: `Check the board later at GET /v1/public/boards/${input.board}: its owner may resume the campaign.`,
      },
    );
  }
  if (campaign?.status !== 'ACTIVE') {
    throw new DomainError(
      'CAMPAIGN_CLOSED',
      'The campaign behind this board is closed: its tasks cannot be taken.',
      {
        board: input.board,
      },
    );
  }
  const [member] = await activeMembers(ex, campaign.id, [me]);
  if (member) {
    throw new DomainError(
      'CONFLICT',
      'You are a member of the campaign this task belongs to: claim it as a member, not through its public board.',
      { board: input.board, task_ref: input.taskRef },
      {
        alternatives: [
          {
            tool: 'task_claim',
            action: 'Claim the task as a member.',
            arguments: { task_id: listing.taskId },
          },
        ],
      },
    );
  }
  const [task] = await ex.select().from(tasks).where(eq(tasks.id, listing.taskId));
  const reason = task ? unlistable(task) : 'it is gone';
  if (!task || reason) {
    throw new DomainError(
      'TASK_NOT_CLAIMABLE',
      `Task ${input.taskRef} is no longer open for pickup: ${reason}.`,
      { board: input.board, task_ref: input.taskRef },
      { next: `Pick another available task at GET /v1/public/boards/${input.board}.` },
    );
  }
  const standing: Membership = { campaign, agentId: me, role: 'PARTICIPANT' };
  const expiresAt = new Date(now.getTime() + ENTRY_HOURS * 3_600_000);
  const entryId = newId('pen', now);
  let outcome: Awaited<ReturnType<typeof tryClaim>>;
  try {
    outcome = await tryClaim(ex, standing, task.id, now, {
      payload: { via: 'PUBLIC_ENTRY', board: input.board, public_entry_id: entryId },
      notAfter: expiresAt,
    });
  } catch (err) {
    // The open-lease index's backstop speaks of the task id: the public gets its own words.
    if (err instanceof DomainError && err.code === 'TASK_ALREADY_CLAIMED') {
      throw new DomainError('TASK_ALREADY_CLAIMED', 'Someone else took this task first.', {
        board: input.board,
        task_ref: input.taskRef,
      });
    }
    throw err;
  }
  if ('lost' in outcome) throw await takeRefusal(ex, me, outcome.lost, input);
  const { won } = outcome;
  await ex.insert(publicEntries).values({
    id: entryId,
    boardSlug: input.board,
    taskRef: input.taskRef,
    taskId: task.id,
    campaignId: campaign.id,
    agentId: me,
    leaseId: won.lease.lease_id,
    createdAt: now,
    expiresAt,
  });
  return {
    public_entry_id: entryId,
    expires_at: expiresAt.toISOString(),
    board: input.board,
    task_ref: input.taskRef,
    task: {
      title: task.title,
      objective: task.objective,
      acceptance: task.acceptance,
      conditions: publicConditions(task.conditions),
    },
    lease: won.lease,
    allowed_actions: [...ENTRY_ACTIONS],
    next_steps: [
      {
        tool: 'public_task_work',
        action: "Read the task's evidence: the sources you may quote.",
        arguments: { public_entry_id: entryId, action: 'task_evidence', arguments: { limit: 20 } },
      },
      {
        tool: 'public_task_work',
        action: 'See the exact arguments of an action.',
        arguments: {
          public_entry_id: entryId,
          action: 'describe_action',
          arguments: { action: 'task_complete' },
        },
      },
    ],
  };
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

/** Why a take lost, from what the claim read (`lost`), in the public's words: never who holds it. */
async function takeRefusal(
  ex: Executor,
  me: string,
  task: LostClaim,
  input: { board: string; taskRef: string },
) {
  const next = { next: `Pick another available task at GET /v1/public/boards/${input.board}.` };
  if (task?.status === 'CLAIMED') {
    if (task.leaseId && task.leaseAgentId === me) {
      const [entry] = await ex
        .select()
        .from(publicEntries)
        .where(and(eq(publicEntries.leaseId, task.leaseId), isNull(publicEntries.endedAt)));
      return new DomainError(
        'TASK_ALREADY_CLAIMED',
        'You already hold this task.',
        {
          board: input.board,
          task_ref: input.taskRef,
          held_by_you: true,
          public_entry_id: entry?.id ?? null,
        },
        entry
          ? {
              alternatives: [
                {
                  tool: 'public_task_work',
                  action: 'Go on with the task through your entry.',
                  arguments: { public_entry_id: entry.id, action: 'task_evidence', arguments: {} },
                },
              ],
            }
          : next,
      );
    }
    // Never who holds it: the public learns only that someone does.
    return new DomainError(
      'TASK_ALREADY_CLAIMED',
      'Someone else took this task first.',
      { board: input.board, task_ref: input.taskRef },
      next,
    );
  }
  if (task?.rewardStatus === 'AWAITING_FUNDING') {
    return new DomainError(
      'REWARD_NOT_FUNDED',
      "This task's reward is not funded yet; it cannot be taken until the campaign owner funds it.",
      { board: input.board, task_ref: input.taskRef, reward_status: task.rewardStatus },
      next,
    );
  }
  return new DomainError(
    'TASK_NOT_CLAIMABLE',
    task?.assigneeId
      ? 'This task is reserved for someone.'
      : `This task is ${task?.status ?? 'gone'}, not open.`,
    { board: input.board, task_ref: input.taskRef, status: task?.status ?? null },
    next,
  );
}

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
