import { and, eq, isNull } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import { activeMembers, type Membership } from '../core/member.ts';
import { findCampaign } from '../membership/members-repo.ts';
import { tasks } from '../tables.ts';
import { type LostClaim, tryClaim } from '../tasks/task-claims.ts';
import { publicConditions, unlistable } from './board-rules.ts';
import { ENTRY_ACTIONS, ENTRY_HOURS } from './public-entries.ts';
import { boards, boardTasks, publicEntries } from './tables.ts';

/**
 * Open pickup (SPEC "What the service does" 8, Public task entry; docs/boards.md): any active
 * identity that is not a member of the campaign takes a listed task by its board and task_ref,
 * and gets a public entry with a lease. The entry is the taker's only standing: it reaches that
 * one task, for 24 hours at most, through public_task_work's few actions.
 */

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
