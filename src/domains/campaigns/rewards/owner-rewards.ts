import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import {
  balanceOf,
  balancesByPrefix,
  type Currency,
  escrowAccountKey,
  insufficientFunds,
  money,
  ownerAccount,
} from '../../funds/index.ts';
import { appendEvent } from '../core/ledger.ts';
import { lockTask } from '../core/task-repo.ts';
import { campaigns, taskSubmissions, tasks } from '../tables.ts';
import { type ApprovalRow, approvalNotFound, decideApproval } from './approvals.ts';
import { escrowIfCovered, lockRewardOfTask, rewardOfTask } from './escrow.ts';
import { approvalUrl, presentReward } from './reward-present.ts';
import { rewardApprovals, taskRewards } from './tables.ts';

/**
 * The owner's side of task rewards (console and `/v1/rewards`): release requests to decide,
 * funding a task that waits for it, and the rewards
 * half of `cairn rewards check`.
 */
export class RewardOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly secret: string,
    private readonly baseUrl: string,
  ) {}

  /** The owner's release requests, newest first; PENDING ones unless another status is asked for. */
  async approvals(
    ownerId: string,
    opts: { status?: string | undefined; limit: number; cursor?: string | undefined },
  ) {
    const status = opts.status ?? 'PENDING';
    const binding = `approvals:${ownerId}:${status}`;
    const before = opts.cursor ? openCursor<{ id: string }>(this.secret, binding, opts.cursor).id : null;
    const rows = await this.database.db
      .select({ a: rewardApprovals, title: tasks.title, campaignTitle: campaigns.title })
      .from(rewardApprovals)
      .innerJoin(tasks, eq(tasks.id, rewardApprovals.taskId))
      .innerJoin(campaigns, eq(campaigns.id, rewardApprovals.campaignId))
      .where(
        and(
          eq(rewardApprovals.ownerId, ownerId),
          status === 'ALL' ? undefined : eq(rewardApprovals.status, status),
          before ? lt(rewardApprovals.id, before) : undefined,
        ),
      )
      .orderBy(desc(rewardApprovals.id))
      .limit(opts.limit + 1);
    const page = cutPage(rows, opts.limit, (last) => signCursor(this.secret, binding, { id: last.a.id }));
    return {
      approvals: page.rows.map((r) => ({
        ...this.summary(r.a),
        task_title: r.title,
        campaign_title: r.campaignTitle,
      })),
      next_cursor: page.next,
    };
  }

  /** One release request with what the owner decides on: the task, the result, its quote checks. */
  async approval(ownerId: string, approvalId: string) {
    const db = this.database.db;
    const [row] = await db
      .select({ a: rewardApprovals, task: tasks, campaignTitle: campaigns.title })
      .from(rewardApprovals)
      .innerJoin(tasks, eq(tasks.id, rewardApprovals.taskId))
      .innerJoin(campaigns, eq(campaigns.id, rewardApprovals.campaignId))
      .where(eq(rewardApprovals.id, approvalId));
    if (row?.a.ownerId !== ownerId) throw approvalNotFound(approvalId);
    const [sub] = await db.select().from(taskSubmissions).where(eq(taskSubmissions.id, row.a.submissionId));
    const v = (sub?.verification ?? {}) as Record<string, unknown>;
    return {
      ...this.summary(row.a),
      campaign_title: row.campaignTitle,
      task: {
        task_id: row.task.id,
        title: row.task.title,
        objective: row.task.objective,
        acceptance: row.task.acceptance,
        status: row.task.status,
        rework_count: row.task.reworkCount,
      },
      submission: sub
        ? {
            submission_id: sub.id,
            agent_id: sub.agentId,
            claimed_outcome: sub.claimedOutcome,
            summary: sub.summary,
            verified_status: sub.verifiedStatus,
            evidence_ids: sub.evidenceIds,
            matched_quotes: v.matched_quotes ?? [],
            unmatched_quotes: v.unmatched_quotes ?? [],
            paid_quotes: v.paid_quotes ?? null,
            checks: v.checks ?? [],
            created_at: sub.createdAt.toISOString(),
          }
        : null,
    };
  }

  /** approve: escrow → the worker's owner; return: rework with a reason. */
  decide(
    ownerId: string,
    approvalId: string,
    decision: { action: 'approve' | 'return'; reason?: string | undefined },
  ) {
    return this.database.transaction((tx) =>
      decideApproval(tx, ownerId, approvalId, decision, this.clock.now()),
    );
  }

  /** What the funding page shows: the task's reward, the owner's balance and what is missing. */
  async funding(ownerId: string, taskId: string) {
    const db = this.database.db;
    const { task, reward } = await this.ownedReward(db, ownerId, taskId);
    const currency = reward.currency as Currency;
    const acct = await ownerAccount(db, ownerId, currency, this.clock.now());
    const balance = await balanceOf(db, acct.id);
    const needed = reward.amount + reward.fee;
    return {
      task_id: task.id,
      title: task.title,
      campaign_id: task.campaignId,
      reward: presentReward(reward, this.baseUrl, null, true),
      needed: money(currency, needed),
      balance: money(currency, balance),
      shortfall: money(currency, Math.max(0, needed - balance)),
      can_fund_now: reward.status === 'AWAITING_FUNDING' && balance >= needed,
    };
  }

  /** Funds an AWAITING_FUNDING reward from the owner's balance: escrowed now, or INSUFFICIENT_FUNDS. */
  fund(ownerId: string, taskId: string) {
    const now = this.clock.now();
    return this.database.transaction(async (tx) => {
      // Ownership first, without a lock: another owner's task is not found, and not queued on.
      const { reward } = await this.ownedReward(tx, ownerId, taskId);
      const task = await lockTask(tx, taskId);
      const r = await lockRewardOfTask(tx, task.id);
      if (r?.status !== 'AWAITING_FUNDING') {
        throw new DomainError(
          'CONFLICT',
          `The reward of task ${taskId} is ${reward.status}, not waiting for funds.`,
          {
            task_id: taskId,
            reward_status: r?.status ?? reward.status,
          },
        );
      }
      if (!(await escrowIfCovered(tx, r, `owner:${ownerId}`, now))) {
        const acct = await ownerAccount(tx, ownerId, r.currency as Currency, now);
        throw insufficientFunds(r.currency as Currency, await balanceOf(tx, acct.id), r.amount + r.fee);
      }
      await appendEvent(
        tx,
        task.campaignId,
        {
          kind: 'REWARD_ESCROWED',
          actor: { ownerId, role: 'OWNER' },
          taskId,
          payload: {
            task_id: taskId,
            currency: r.currency,
            minor_units: r.amount,
            fee_minor_units: r.fee,
            status: 'ESCROWED',
          },
        },
        now,
      );
      return {
        task_id: taskId,
        reward_status: 'ESCROWED',
        escrowed: money(r.currency as Currency, r.amount),
      };
    });
  }

  /**
   * The rewards half of the invariant check: each reward's escrow holds exactly what its status
   * says (the amount while escrowed or awaiting approval, nothing once paid, refunded or never funded).
   */
  check() {
    // One snapshot for both reads, so a reward funded between them is not reported as a mismatch.
    return this.database.transaction(async (db) => {
      await db.execute(sql`set transaction isolation level repeatable read`);
      return checkRewards(db);
    });
  }

  private async ownedReward(ex: Executor, ownerId: string, taskId: string) {
    const [task] = await ex.select().from(tasks).where(eq(tasks.id, taskId));
    const [campaign] = task ? await ex.select().from(campaigns).where(eq(campaigns.id, task.campaignId)) : [];
    if (!task || campaign?.ownerId !== ownerId) {
      throw new DomainError('NOT_FOUND', `No task ${taskId} in a campaign of yours.`, { task_id: taskId });
    }
    const reward = await rewardOfTask(ex, taskId);
    if (!reward) {
      throw new DomainError('NOT_FOUND', `Task ${taskId} carries no reward.`, { task_id: taskId });
    }
    return { task, reward };
  }

  private summary(a: ApprovalRow) {
    return {
      approval_id: a.id,
      approval_url: approvalUrl(this.baseUrl, a.id),
      task_id: a.taskId,
      campaign_id: a.campaignId,
      status: a.status,
      reward: money(a.currency as Currency, a.amount),
      worker_agent_id: a.workerAgentId,
      requested_by: a.requestedBy,
      reason: a.reason,
      requested_at: a.createdAt.toISOString(),
      decided_at: a.decidedAt?.toISOString() ?? null,
    };
  }
}

/**
 * The rewards half of the invariant check: each reward's escrow holds exactly what its status
 * says (the amount while escrowed or awaiting approval, nothing once paid, refunded or never funded).
 */
async function checkRewards(db: Executor) {
  const rewards = await db.select().from(taskRewards);
  const escrows = await balancesByPrefix(db, 'escrow:');
  const wrong: Array<{ task_id: string; status: string; escrow: number; expected: number }> = [];
  for (const r of rewards) {
    const held = escrows.get(escrowAccountKey(r.taskId, r.currency as Currency)) ?? 0;
    const expected = r.status === 'ESCROWED' || r.status === 'RELEASE_REQUESTED' ? r.amount : 0;
    if (held !== expected) wrong.push({ task_id: r.taskId, status: r.status, escrow: held, expected });
  }
  // A task approved twice would be a double payment, whatever the escrow shows.
  const twice = await db
    .select({ taskId: rewardApprovals.taskId, n: sql<number>`count(*)::int` })
    .from(rewardApprovals)
    .where(eq(rewardApprovals.status, 'APPROVED'))
    .groupBy(rewardApprovals.taskId)
    .having(sql`count(*) > 1`);
  return {
    ok: wrong.length === 0 && twice.length === 0,
    rewards: rewards.length,
    escrow_mismatches: wrong.slice(0, 100),
    double_payments: twice.length,
  };
}
