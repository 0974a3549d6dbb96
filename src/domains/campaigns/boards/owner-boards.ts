import { randomBytes } from 'node:crypto';
import { and, asc, desc, eq, inArray, isNull } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { base32 } from '../../../kernel/ids.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { lockedOne } from '../../../storage/locked.ts';
import { appendEvent } from '../core/ledger.ts';
import { campaignNotOwned, requireTakingNew } from '../errors.ts';
import { campaigns, tasks } from '../tables.ts';
import {
  BOARD_PURPOSES,
  type BoardPurpose,
  MAX_BOARD_TASKS,
  notListable,
  PURPOSE_MEANING,
  unlistable,
} from './board-rules.ts';
import { type BoardRow, listedTasks, presentBoardSummary, presentListedTask } from './board-view.ts';
import { endEntriesOf } from './public-entries.ts';
import { boards, boardTasks } from './tables.ts';

/**
 * Boards for their owner (console, `/v1/boards`; docs/boards.md): publish some of a campaign's
 * open-pickup tasks under a slug, change the board, withdraw it. Only the campaign's owner of
 * record publishes its tasks; another owner's board or campaign is NOT_FOUND.
 */

export interface BoardInput {
  slug: string;
  title: string;
  purpose: BoardPurpose;
  campaignId: string;
  taskIds: string[];
}

export interface BoardPatch {
  title?: string | undefined;
  purpose?: BoardPurpose | undefined;
  taskIds?: string[] | undefined;
}

const newTaskRef = () => `tref_${base32(randomBytes(15))}`;

/** How many of a campaign's tasks (newest first) the console offers as board choices. */
const TASK_CHOICES = 200;

export class BoardService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly baseUrl: string,
  ) {}

  async publish(ownerId: string, input: BoardInput) {
    return this.database.transaction(async (tx) => {
      const now = this.clock.now();
      const [campaign] = await tx
        .select()
        .from(campaigns)
        .where(and(eq(campaigns.id, input.campaignId), eq(campaigns.ownerId, ownerId)));
      if (!campaign) throw campaignNotOwned(input.campaignId);
      requireTakingNew(campaign, 'OWNER');
      await this.checkListable(tx, campaign.id, input.taskIds);
      const inserted = await tx
        .insert(boards)
        .values({
          slug: input.slug,
          ownerId,
          campaignId: campaign.id,
          title: input.title,
          purpose: input.purpose,
          publishedAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .returning();
      const board = inserted[0];
      if (!board) {
        throw new DomainError(
          'CONFLICT',
          `The board name ${input.slug} is taken (names are never reused, withdrawn boards' included).`,
          { slug: input.slug },
          { next: 'Publish under another slug.' },
        );
      }
      await this.setTasks(tx, board.slug, input.taskIds, now);
      await this.record(tx, board, 'BOARD_PUBLISHED', input.taskIds, now);
      return this.present(tx, board);
    });
  }

  async update(ownerId: string, slug: string, patch: BoardPatch) {
    return this.database.transaction(async (tx) => {
      const now = this.clock.now();
      const board = await this.ownLive(tx, ownerId, slug);
      if (patch.taskIds) {
        await this.checkListable(tx, board.campaignId, patch.taskIds);
        const gone = await this.setTasks(tx, slug, patch.taskIds, now);
        // A task taken off the board: its public entries end at once, their leases with them.
        await endEntriesOf(tx, slug, gone, 'TASK_REMOVED', now);
      }
      const [updated] = await tx
        .update(boards)
        .set({
          ...(patch.title !== undefined ? { title: patch.title } : {}),
          ...(patch.purpose !== undefined ? { purpose: patch.purpose } : {}),
          updatedAt: now,
        })
        .where(eq(boards.slug, slug))
        .returning();
      const current = updated as BoardRow;
      // Every change is on the ledger, with the list as it now stands.
      const listedNow = await tx
        .select({ taskId: boardTasks.taskId })
        .from(boardTasks)
        .where(eq(boardTasks.boardSlug, slug))
        .orderBy(asc(boardTasks.position));
      await this.record(
        tx,
        current,
        'BOARD_CHANGED',
        listedNow.map((r) => r.taskId),
        now,
      );
      return this.present(tx, current);
    });
  }

  /** DELETE: gone from the public at once; the slug stays taken and its refs are never reissued. */
  async withdraw(ownerId: string, slug: string) {
    return this.database.transaction(async (tx) => {
      const now = this.clock.now();
      const board = await this.ownLive(tx, ownerId, slug);
      await endEntriesOf(tx, slug, null, 'BOARD_WITHDRAWN', now);
      const [withdrawn] = await tx
        .update(boards)
        .set({ withdrawnAt: now, updatedAt: now })
        .where(eq(boards.slug, slug))
        .returning();
      await this.record(tx, withdrawn as BoardRow, 'BOARD_WITHDRAWN', [], now);
      return { slug: board.slug, withdrawn: true, withdrawn_at: now.toISOString() };
    });
  }

  /** The owner's boards, newest first, withdrawn ones included (marked). */
  async list(ownerId: string) {
    const db = this.database.db;
    const rows = await db
      .select()
      .from(boards)
      .where(eq(boards.ownerId, ownerId))
      .orderBy(desc(boards.publishedAt))
      .limit(200);
    const listed = await listedTasks(
      db,
      rows.map((b) => b.slug),
    );
    return {
      boards: rows.map((b) => ({
        ...presentBoardSummary(b, listed.get(b.slug) ?? [], this.baseUrl),
        campaign_id: b.campaignId,
        withdrawn_at: b.withdrawnAt?.toISOString() ?? null,
      })),
    };
  }

  async get(ownerId: string, slug: string) {
    const db = this.database.db;
    const [board] = await db
      .select()
      .from(boards)
      .where(and(eq(boards.slug, slug), eq(boards.ownerId, ownerId)));
    if (!board) throw boardNotFound(slug);
    return this.present(db, board);
  }

  /**
   * What a board of this campaign may list (the console's publish and edit forms): the campaign,
   * the purposes with their meanings, and its tasks, newest first, each with whether it may be
   * listed and, if not, why (`unlistable`, the rule publish and update apply). `include` adds
   * tasks beyond the newest TASK_CHOICES (a board's own). NOT_FOUND unless the owner's campaign.
   */
  async listableTasks(ownerId: string, campaignId: string, include: string[] = []) {
    const db = this.database.db;
    const [campaign] = await db
      .select()
      .from(campaigns)
      .where(and(eq(campaigns.id, campaignId), eq(campaigns.ownerId, ownerId)));
    if (!campaign) throw campaignNotOwned(campaignId);
    const newest = await db
      .select()
      .from(tasks)
      .where(eq(tasks.campaignId, campaign.id))
      .orderBy(desc(tasks.createdAt), desc(tasks.id))
      .limit(TASK_CHOICES + 1);
    const shown = newest.slice(0, TASK_CHOICES);
    const missing = [...new Set(include)].filter((id) => !shown.some((t) => t.id === id));
    const extra =
      missing.length > 0
        ? await db
            .select()
            .from(tasks)
            .where(and(eq(tasks.campaignId, campaign.id), inArray(tasks.id, missing)))
        : [];
    return {
      campaign_id: campaign.id,
      campaign_title: campaign.title,
      campaign_status: campaign.status,
      purposes: BOARD_PURPOSES.map((purpose) => ({ purpose, meaning: PURPOSE_MEANING[purpose] })),
      max_tasks: MAX_BOARD_TASKS,
      more_tasks: newest.length > TASK_CHOICES,
      tasks: [...shown, ...extra].map((t) => {
        const reason = unlistable(t);
        return {
          task_id: t.id,
          title: t.title,
          status: t.status,
          created_at: t.createdAt.toISOString(),
          listable: reason === null,
          reason,
        };
      }),
    };
  }

  private async present(ex: Executor, board: BoardRow) {
    const listed = (await listedTasks(ex, [board.slug])).get(board.slug) ?? [];
    return {
      ...presentBoardSummary(board, listed, this.baseUrl),
      campaign_id: board.campaignId,
      withdrawn_at: board.withdrawnAt?.toISOString() ?? null,
      // The owner sees which task each ref stands for; the public never does.
      tasks: listed.map((t) => ({ ...presentListedTask(t), task_id: t.taskId })),
    };
  }

  private async ownLive(ex: Executor, ownerId: string, slug: string): Promise<BoardRow> {
    return lockedOne(
      ex
        .select()
        .from(boards)
        .where(and(eq(boards.slug, slug), eq(boards.ownerId, ownerId), isNull(boards.withdrawnAt))),
      () => boardNotFound(slug),
    );
  }

  /** Every task is the campaign's and may be listed; otherwise nothing is written. */
  private async checkListable(ex: Executor, campaignId: string, taskIds: string[]) {
    const ids = [...new Set(taskIds)];
    if (ids.length === 0 || ids.length > MAX_BOARD_TASKS) {
      throw new DomainError('VALIDATION_FAILED', `A board lists 1-${MAX_BOARD_TASKS} tasks.`, {
        detail: [{ loc: ['body', 'task_ids'], msg: `1-${MAX_BOARD_TASKS} task ids`, type: 'size' }],
      });
    }
    const rows = await ex
      .select()
      .from(tasks)
      .where(and(eq(tasks.campaignId, campaignId), inArray(tasks.id, ids)));
    const found = new Map(rows.map((t) => [t.id, t]));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) {
      throw new DomainError('NOT_FOUND', `No task ${missing.join(', ')} in campaign ${campaignId}.`, {
        task_ids: missing,
        campaign_id: campaignId,
      });
    }
    const problems = rows.flatMap((t) => {
      const reason = unlistable(t);
      return reason ? [{ task_id: t.id, reason }] : [];
    });
    if (problems.length > 0) throw notListable(problems);
  }

  /** The board lists exactly these tasks in this order; a task kept keeps its ref. */
  private async setTasks(ex: Executor, slug: string, taskIds: string[], now: Date): Promise<string[]> {
    const ids = [...new Set(taskIds)];
    const current = await ex.select().from(boardTasks).where(eq(boardTasks.boardSlug, slug));
    const gone = current.filter((r) => !ids.includes(r.taskId)).map((r) => r.taskId);
    if (gone.length > 0) {
      await ex
        .delete(boardTasks)
        .where(and(eq(boardTasks.boardSlug, slug), inArray(boardTasks.taskId, gone)));
    }
    const kept = new Set(current.map((r) => r.taskId));
    for (const [position, taskId] of ids.entries()) {
      if (kept.has(taskId)) {
        await ex
          .update(boardTasks)
          .set({ position })
          .where(and(eq(boardTasks.boardSlug, slug), eq(boardTasks.taskId, taskId)));
      } else {
        await ex
          .insert(boardTasks)
          .values({ boardSlug: slug, taskId, taskRef: newTaskRef(), position, addedAt: now });
      }
    }
    return gone;
  }

  /** Members see on the ledger that the owner made tasks public, changed the list, or withdrew it. */
  private async record(ex: Executor, board: BoardRow, kind: string, taskIds: string[], now: Date) {
    await appendEvent(
      ex,
      board.campaignId,
      {
        kind,
        actor: { ownerId: board.ownerId, role: 'OWNER' },
        payload: { slug: board.slug, title: board.title, purpose: board.purpose, task_ids: taskIds },
      },
      now,
    );
  }
}

export const boardNotFound = (slug: string) =>
  new DomainError('NOT_FOUND', `No board ${slug} of yours.`, { slug });
