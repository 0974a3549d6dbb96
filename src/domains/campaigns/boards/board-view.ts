import { asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import { type Currency, money } from '../../funds/index.ts';
import { taskRewards } from '../rewards/tables.ts';
import { campaigns, tasks } from '../tables.ts';
import { type BoardPurpose, PURPOSE_MEANING, publicConditions } from './board-rules.ts';
import { type boards, boardTasks } from './tables.ts';

/**
 * A board as the public sees it (docs/boards.md): its listed tasks with their published terms,
 * reward and funding state, and whether each can be taken now. Never a task, campaign, agent or
 * owner id: a listed task is named by its opaque task_ref.
 */

export type BoardRow = typeof boards.$inferSelect;

export interface ListedTask {
  boardSlug: string;
  taskRef: string;
  position: number;
  taskId: string;
  title: string;
  objective: string;
  acceptance: string;
  conditions: Record<string, unknown>;
  status: string;
  reserved: boolean;
  campaignActive: boolean;
  reward: { currency: string; amount: number; status: string } | null;
}

/** The listed tasks of these boards, in board order, with what decides whether each is available. */
export async function listedTasks(ex: Executor, slugs: string[]): Promise<Map<string, ListedTask[]>> {
  const bySlug = new Map<string, ListedTask[]>(slugs.map((s) => [s, []]));
  if (slugs.length === 0) return bySlug;
  const rows = await ex
    .select({
      boardSlug: boardTasks.boardSlug,
      taskRef: boardTasks.taskRef,
      position: boardTasks.position,
      taskId: tasks.id,
      title: tasks.title,
      objective: tasks.objective,
      acceptance: tasks.acceptance,
      conditions: tasks.conditions,
      status: tasks.status,
      assigneeId: tasks.assigneeId,
      campaignStatus: campaigns.status,
      rewardCurrency: taskRewards.currency,
      rewardAmount: taskRewards.amount,
      rewardStatus: taskRewards.status,
    })
    .from(boardTasks)
    .innerJoin(tasks, eq(tasks.id, boardTasks.taskId))
    .innerJoin(campaigns, eq(campaigns.id, tasks.campaignId))
    .leftJoin(taskRewards, eq(taskRewards.taskId, tasks.id))
    .where(inArray(boardTasks.boardSlug, slugs))
    .orderBy(asc(boardTasks.boardSlug), asc(boardTasks.position));
  for (const r of rows) {
    bySlug.get(r.boardSlug)?.push({
      boardSlug: r.boardSlug,
      taskRef: r.taskRef,
      position: r.position,
      taskId: r.taskId,
      title: r.title,
      objective: r.objective,
      acceptance: r.acceptance,
      conditions: r.conditions,
      status: r.status,
      reserved: r.assigneeId !== null,
      campaignActive: r.campaignStatus === 'ACTIVE',
      reward:
        r.rewardCurrency && r.rewardStatus
          ? { currency: r.rewardCurrency, amount: Number(r.rewardAmount), status: r.rewardStatus }
          : null,
    });
  }
  return bySlug;
}

/** Whether anyone may take the task now: open, reserved for nobody, funded if it pays, campaign active. */
export function available(t: ListedTask): boolean {
  return t.campaignActive && t.status === 'OPEN' && !t.reserved && t.reward?.status !== 'AWAITING_FUNDING';
}

/** A reward counts as funded while its escrow holds it (or it is being paid out). */
export function funded(t: ListedTask): boolean {
  return t.reward?.status === 'ESCROWED' || t.reward?.status === 'RELEASE_REQUESTED';
}

function presentReward(t: ListedTask) {
  if (!t.reward) return null;
  return {
    ...money(t.reward.currency as Currency, t.reward.amount),
    status: t.reward.status,
    funded: funded(t),
  };
}

export function presentListedTask(t: ListedTask) {
  return {
    task_ref: t.taskRef,
    title: t.title,
    objective: t.objective,
    acceptance: t.acceptance,
    conditions: publicConditions(t.conditions),
    status: t.status,
    available: available(t),
    reward: presentReward(t),
  };
}

/** OPEN while at least one listed task can be taken now; CLOSED otherwise. */
export function boardStatus(board: BoardRow, listed: ListedTask[]): 'OPEN' | 'CLOSED' {
  return board.withdrawnAt === null && listed.some(available) ? 'OPEN' : 'CLOSED';
}

export function presentBoardSummary(board: BoardRow, listed: ListedTask[], baseUrl: string) {
  return {
    slug: board.slug,
    title: board.title,
    purpose: board.purpose,
    purpose_meaning: PURPOSE_MEANING[board.purpose as BoardPurpose] ?? '',
    status: boardStatus(board, listed),
    tasks_listed: listed.length,
    tasks_available: listed.filter(available).length,
    tasks_funded: listed.filter(funded).length,
    url: `${baseUrl}/v1/public/boards/${board.slug}`,
    published_at: board.publishedAt.toISOString(),
    updated_at: board.updatedAt.toISOString(),
  };
}
