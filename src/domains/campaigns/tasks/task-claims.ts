import { and, eq, isNull, lte, or, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { preparedStatement } from '../../../storage/prepared.ts';
import type { Caller } from '../../identity/index.ts';
import { seesAllTasks, seesOtherWorkers, tasksVisible, type Viewer, viewerOf } from '../audience.ts';
import { storedConditions } from '../core/conditions.ts';
import { appendEvent } from '../core/ledger.ts';
import { actorOf, type Membership } from '../core/member.ts';
import { taskForMember } from '../core/task-access.ts';
import { historyInsert } from '../core/task-repo.ts';
import { taskNotFound } from '../errors.ts';
import { taskRewards } from '../rewards/tables.ts';
import { taskLeases, tasks } from '../tables.ts';
import { expireDueLeases, liveLeaseOn } from './leases.ts';

/** Claiming a task (task_claim, and the claim of an open pickup); lease-moves.ts keeps, gives up and hands over. */

export interface ClaimResult {
  task_id: string;
  lease: { lease_id: string; execution_deadline: string };
  status: 'CLAIMED';
  version: number;
}

/**
 * task_claim: a single winner under any concurrency, across processes. The winner is whoever's
 * conditional UPDATE flips the task from OPEN first; PostgreSQL makes every other claimer wait
 * for that row and then find it no longer OPEN. The partial unique index on open leases backs
 * this up. The execution_deadline is fixed here: claim time plus time_budget_minutes.
 */
export async function claimTask(
  ex: Executor,
  caller: Caller,
  taskId: string,
  now: Date,
  campaignId?: string,
): Promise<ClaimResult> {
  const { member, viewer } = await taskForMember(ex, caller, taskId, {
    forNew: true,
    mustSee: false,
    campaignId,
  });
  const outcome = await tryClaim(ex, member, taskId, now);
  if ('lost' in outcome) throw claimRefusal(viewer, member.agentId, taskId, outcome.lost);
  return outcome.won;
}

export interface ClaimOptions {
  payload?: Record<string, unknown>;
  notAfter?: Date;
}

/**
 * The claim itself, for a worker whose standing was checked by the caller: a member
 * (task_claim) or the taker of a public entry (public_task_take), who words a lost claim's
 * refusal in its own terms from what `lost` says.
 *
 * The conditional UPDATE decides (one statement on the common path). A claim that lost reads,
 * in one more statement, what it lost to (`lostClaim`); when that is a lease past its deadline,
 * the lease is ended here, in the claim's own transaction, and the claim tried once more.
 */
export async function tryClaim(
  ex: Executor,
  member: Membership,
  taskId: string,
  now: Date,
  opts: ClaimOptions = {},
): Promise<{ won: ClaimResult } | { lost: LostClaim }> {
  const me = member.agentId;
  // A placeholder's value reaches the driver as it is (no column encoding): the time as ISO text.
  const attempt = async () => (await claimUpdate(ex, { taskId, me, now: now.toISOString() }))[0];
  let won = await attempt();
  if (!won) {
    const viewer = viewerOf(member);
    const lost = await lostClaim(ex, viewer, taskId, now);
    if (!lost?.lapsed) return { lost };
    // Tried again even when the sweeper (or another claimer) ended that lease first: the task
    // may be OPEN by now, and what this read saw is stale either way.
    await expireDueLeases(ex, now, { taskId });
    won = await attempt();
    if (!won) return { lost: await lostClaim(ex, viewer, taskId, now) };
  }
  return { won: await recordClaim(ex, member, taskId, won, now, opts) };
}

/**
 * The conditional UPDATE that decides a claim: only an OPEN task, unassigned or assigned to the
 * claimer, whose reward (if any) is in escrow. Prepared: every claim attempt sends it.
 */
const claimUpdate = preparedStatement('cairn_task_claim', (ex) =>
  ex
    .update(tasks)
    .set({ status: 'CLAIMED', version: sql`${tasks.version} + 1`, updatedAt: sql`${sql.placeholder('now')}` })
    .where(
      and(
        eq(tasks.id, sql.placeholder('taskId')),
        eq(tasks.status, 'OPEN'),
        or(isNull(tasks.assigneeId), eq(tasks.assigneeId, sql.placeholder('me'))),
        // A paid task is claimable only once its reward is in escrow.
        sql`not exists (select 1 from ${taskRewards} where ${taskRewards.taskId} = ${tasks.id} and ${taskRewards.status} = 'AWAITING_FUNDING')`,
      ),
    )
    .returning(),
);

/** A won claim's lease, history entry and ledger event. */
async function recordClaim(
  ex: Executor,
  member: Membership,
  taskId: string,
  won: typeof tasks.$inferSelect,
  now: Date,
  opts: ClaimOptions,
): Promise<ClaimResult> {
  const payload = opts.payload ?? {};
  const me = member.agentId;
  const minutes = storedConditions(won.conditions).time_budget_minutes;
  const budgetEnd = now.getTime() + minutes * 60_000;
  // A public entry's lease ends with the entry at the latest (docs/boards.md).
  const deadline = new Date(opts.notAfter ? Math.min(budgetEnd, opts.notAfter.getTime()) : budgetEnd);
  const leaseId = newId('lse', now);
  // The lease, the history entry and the ledger event: one statement (docs/performance.md).
  const lease = ex.insert(taskLeases).values({
    id: leaseId,
    taskId,
    campaignId: won.campaignId,
    agentId: me,
    claimedAt: now,
    executionDeadline: deadline,
  });
  const history = historyInsert(ex, {
    taskId,
    agentId: me,
    kind: 'CLAIM',
    before: { status: 'OPEN' },
    after: { status: 'CLAIMED', execution_deadline: deadline.toISOString(), ...payload },
    version: won.version,
    now,
  });
  const event = {
    kind: 'TASK_CLAIMED',
    actor: actorOf(member),
    taskId,
    payload: {
      task_id: taskId,
      status: 'CLAIMED',
      execution_deadline: deadline.toISOString(),
      version: won.version,
      ...payload,
    },
  };
  try {
    await appendEvent(ex, won.campaignId, event, now, [lease, history]);
  } catch (err) {
    // The backstop: another open lease exists, so this claim did not really win.
    if (isUniqueViolation(err)) throw alreadyClaimed(taskId, 'CLAIMED', null);
    throw err;
  }
  return {
    task_id: taskId,
    lease: { lease_id: leaseId, execution_deadline: deadline.toISOString() },
    status: 'CLAIMED',
    version: won.version,
  };
}

/** What a lost claim found, read in one statement: the task, its live lease, a lapsed one, its reward. */
export interface LostClaimRow {
  status: string;
  campaignId: string;
  assigneeId: string | null;
  visible: boolean;
  lapsed: boolean;
  leaseId: string | null;
  leaseAgentId: string | null;
  leaseDeadline: Date | null;
  rewardStatus: string | null;
}
export type LostClaim = LostClaimRow | null;

async function lostClaim(ex: Executor, viewer: Viewer, taskId: string, now: Date): Promise<LostClaim> {
  // 900 of the campaign benchmark's 1,000 attempts lose: for a viewer who sees every task of its
  // campaign (every mode but TASK_SCOPED for a participant) the statement is prepared.
  const [row] = seesAllTasks(viewer)
    ? await lostClaimSeeingAll(ex, { campaignId: viewer.campaign.id, taskId, now: now.toISOString() })
    : await lostClaimQuery(ex, tasksVisible(viewer), taskId, now);
  return row ?? null;
}

/** The task, its live lease, whether a lease past its deadline still holds it, the caller's view of it and its reward. */
function lostClaimQuery(ex: Executor, visible: SQL, taskId: string | Placeholder, now: Date | Placeholder) {
  return ex
    .select({
      status: tasks.status,
      campaignId: tasks.campaignId,
      assigneeId: tasks.assigneeId,
      visible: sql<boolean>`(${visible})`,
      // A lease still open past its deadline: the sweeper has not ended it yet.
      lapsed: sql<boolean>`exists (select 1 from ${taskLeases} where ${and(
        eq(taskLeases.taskId, tasks.id),
        isNull(taskLeases.endedAt),
        lte(taskLeases.executionDeadline, now),
      )})`,
      leaseId: taskLeases.id,
      leaseAgentId: taskLeases.agentId,
      leaseDeadline: taskLeases.executionDeadline,
      rewardStatus: taskRewards.status,
    })
    .from(tasks)
    .leftJoin(taskLeases, liveLeaseOn(now))
    .leftJoin(taskRewards, eq(taskRewards.taskId, tasks.id))
    .where(eq(tasks.id, taskId));
}

// A placeholder's value reaches the driver as it is (no column encoding): the time as ISO text.
const lostClaimSeeingAll = preparedStatement('cairn_lost_claim', (ex) =>
  lostClaimQuery(
    ex,
    eq(tasks.campaignId, sql.placeholder('campaignId')),
    sql.placeholder('taskId'),
    sql.placeholder('now'),
  ),
);

/** Why a claim lost: held by someone (TASK_ALREADY_CLAIMED), hidden (NOT_FOUND) or not open to the caller. */
function claimRefusal(viewer: Viewer, me: string, taskId: string, task: LostClaim): DomainError {
  if (!task) return taskNotFound(taskId);
  if (task.status === 'CLAIMED') {
    if (task.leaseAgentId === me && task.leaseId && task.leaseDeadline) {
      // Picking another task is not the move for the holder: working on this one is.
      return new DomainError(
        'TASK_ALREADY_CLAIMED',
        `You already hold task ${taskId}.`,
        {
          task_id: taskId,
          status: task.status,
          held_by_you: true,
          lease_id: task.leaseId,
          execution_deadline: task.leaseDeadline.toISOString(),
        },
        {
          next: `Work under your lease ${task.leaseId}: read with fetch_text (task_id ${taskId}), then hand in with task_complete before ${task.leaseDeadline.toISOString()}; task_release gives it up.`,
        },
      );
    }
    return alreadyClaimed(
      taskId,
      task.status,
      task.visible && seesOtherWorkers(viewer) ? task.leaseAgentId : null,
    );
  }
  if (!task.visible) return taskNotFound(taskId);
  if (task.status === 'OPEN' && task.rewardStatus === 'AWAITING_FUNDING') {
    return new DomainError(
      'REWARD_NOT_FUNDED',
      `Task ${taskId} carries a reward its campaign owner has not funded yet; it cannot be claimed until then.`,
      { task_id: taskId, reward_status: task.rewardStatus },
      {
        alternatives: [
          {
            tool: 'task_list',
            action: 'Pick another open task.',
            arguments: { campaign_id: task.campaignId, status: 'OPEN' },
          },
          {
            tool: 'events_watch',
            action: 'Wait for REWARD_ESCROWED on this task, then claim it.',
            arguments: { campaign_id: task.campaignId },
          },
        ],
      },
    );
  }
  const reserved = task.status === 'OPEN' && task.assigneeId !== null;
  return new DomainError(
    'TASK_NOT_CLAIMABLE',
    reserved
      ? `Task ${taskId} is reserved for another agent.`
      : `Task ${taskId} is ${task.status}, not OPEN.`,
    {
      task_id: taskId,
      status: task.status,
      reserved,
      assignee_id: seesOtherWorkers(viewer) ? task.assigneeId : null,
    },
  );
}

function alreadyClaimed(taskId: string, status: string, holder: string | null) {
  return new DomainError(
    'TASK_ALREADY_CLAIMED',
    `Task ${taskId} is already claimed by another agent.`,
    {
      task_id: taskId,
      status,
      // Never the holder's lease id; the holder only where the mode shows other workers.
      ...(holder ? { agent_id: holder } : {}),
    },
    {
      next: 'Pick another open task (task_list), or watch for this one to reopen (events_watch: TASK_RELEASED, TASK_LEASE_EXPIRED).',
      alternatives: [
        { tool: 'task_list', action: 'Find another open task to claim.', arguments: { status: 'OPEN' } },
        { tool: 'events_watch', action: 'Wait for this task to reopen.' },
      ],
    },
  );
}

function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === '23505') return true;
  }
  return false;
}
