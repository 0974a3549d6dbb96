import { and, asc, desc, eq, gt, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Database } from '../../../storage/database.ts';
import { containsPattern } from '../../../storage/like.ts';
import { taskRewards } from '../rewards/tables.ts';
import { campaigns, tasks } from '../tables.ts';
import type { BoardPurpose } from './board-rules.ts';
import { listedTasks, presentBoardSummary, presentListedTask } from './board-view.ts';
import { boards, boardTasks } from './tables.ts';

/**
 * `GET /v1/public/boards` and `/v1/public/boards/{slug}` (SPEC Public): the published boards,
 * newest first, filtered in SQL before a page is cut, paged both ways with signed cursors that
 * carry their filters (a cursor used with other filters is CURSOR_INVALID).
 */

export interface BoardFilters {
  q?: string | undefined;
  purpose?: BoardPurpose | undefined;
  status?: 'OPEN' | 'CLOSED' | undefined;
  funded?: boolean | undefined;
}

interface Position {
  at: string;
  slug: string;
  dir: 'next' | 'prev';
}

/** What the filters are, in one order: the cursor's binding. */
const bindingOf = (f: BoardFilters) =>
  `public-boards:${JSON.stringify([f.q ?? null, f.purpose ?? null, f.status ?? null, f.funded ?? null])}`;

/** A listed task that anyone could take now (board_view.ts `available`, as SQL). */
const availableTask = sql`${tasks.status} = 'OPEN' and ${tasks.assigneeId} is null and ${campaigns.status} = 'ACTIVE'
  and not exists (select 1 from ${taskRewards} where ${taskRewards.taskId} = ${tasks.id} and ${taskRewards.status} = 'AWAITING_FUNDING')`;

function listedWhere(condition: SQL): SQL {
  return sql`exists (select 1 from ${boardTasks}
    join ${tasks} on ${tasks.id} = ${boardTasks.taskId}
    join ${campaigns} on ${campaigns.id} = ${tasks.campaignId}
    where ${boardTasks.boardSlug} = ${boards.slug} and ${condition})`;
}

/** `%`, `_` and `\` taken literally in ILIKE. */

export class PublicBoards {
  constructor(
    private readonly database: Database,
    private readonly secret: string,
    private readonly baseUrl: string,
  ) {}

  async list(filters: BoardFilters, page: { limit: number; cursor?: string | undefined }) {
    const db = this.database.db;
    const binding = bindingOf(filters);
    const position = page.cursor ? openCursor<Partial<Position>>(this.secret, binding, page.cursor) : null;
    if (
      position &&
      (typeof position.at !== 'string' ||
        Number.isNaN(Date.parse(position.at)) ||
        typeof position.slug !== 'string' ||
        (position.dir !== 'next' && position.dir !== 'prev'))
    ) {
      throw new DomainError('CURSOR_INVALID', 'That is not a board cursor.', {});
    }
    const q = filters.q?.trim();
    const where = and(
      isNull(boards.withdrawnAt),
      filters.purpose ? eq(boards.purpose, filters.purpose) : undefined,
      q
        ? or(
            sql`${boards.title} ilike ${containsPattern(q)}`,
            listedWhere(
              sql`(${tasks.title} ilike ${containsPattern(q)} or ${tasks.objective} ilike ${containsPattern(q)})`,
            ),
          )
        : undefined,
      filters.status === 'OPEN'
        ? listedWhere(availableTask)
        : filters.status === 'CLOSED'
          ? sql`not ${listedWhere(availableTask)}`
          : undefined,
      filters.funded === undefined
        ? undefined
        : (() => {
            const isFunded = listedWhere(
              sql`exists (select 1 from ${taskRewards} where ${taskRewards.taskId} = ${tasks.id} and ${taskRewards.status} in ('ESCROWED', 'RELEASE_REQUESTED'))`,
            );
            return filters.funded ? isFunded : sql`not ${isFunded}`;
          })(),
    );
    // Newest first: (published_at desc, slug asc). A previous page is read backwards, then turned.
    const after = (p: { at: string; slug: string }) =>
      or(
        lt(boards.publishedAt, new Date(p.at)),
        and(eq(boards.publishedAt, new Date(p.at)), gt(boards.slug, p.slug)),
      );
    const before = (p: { at: string; slug: string }) =>
      or(
        gt(boards.publishedAt, new Date(p.at)),
        and(eq(boards.publishedAt, new Date(p.at)), lt(boards.slug, p.slug)),
      );
    const backwards = position?.dir === 'prev';
    const rows = await db
      .select()
      .from(boards)
      .where(
        and(
          where,
          position ? (backwards ? before(position as Position) : after(position as Position)) : undefined,
        ),
      )
      .orderBy(
        ...(backwards
          ? [asc(boards.publishedAt), desc(boards.slug)]
          : [desc(boards.publishedAt), asc(boards.slug)]),
      )
      .limit(page.limit + 1);
    const more = rows.length > page.limit;
    const shown = rows.slice(0, page.limit);
    if (backwards) shown.reverse();
    const first = shown[0];
    const last = shown.at(-1);
    const exists = async (cond: SQL | undefined) =>
      (await db.select({ slug: boards.slug }).from(boards).where(and(where, cond)).limit(1)).length > 0;
    const key = (b: { publishedAt: Date; slug: string }) => ({
      at: b.publishedAt.toISOString(),
      slug: b.slug,
    });
    const hasNext = last ? (backwards ? await exists(after(key(last))) : more) : false;
    const hasPrevious = first
      ? backwards
        ? more
        : position
          ? await exists(before(key(first)))
          : false
      : false;
    const listed = await listedTasks(
      db,
      shown.map((b) => b.slug),
    );
    return {
      boards: shown.map((b) => presentBoardSummary(b, listed.get(b.slug) ?? [], this.baseUrl)),
      next_cursor: hasNext && last ? signCursor(this.secret, binding, { ...key(last), dir: 'next' }) : null,
      previous_cursor:
        hasPrevious && first ? signCursor(this.secret, binding, { ...key(first), dir: 'prev' }) : null,
      filters: {
        q: q ?? null,
        purpose: filters.purpose ?? null,
        status: filters.status ?? null,
        funded: filters.funded ?? null,
      },
    };
  }

  /** One published board with its listed tasks; NOT_FOUND when there is none or it was withdrawn. */
  async get(slug: string) {
    const db = this.database.db;
    const [board] = await db
      .select()
      .from(boards)
      .where(and(eq(boards.slug, slug), isNull(boards.withdrawnAt)));
    if (!board) {
      throw new DomainError(
        'NOT_FOUND',
        `No published board ${slug}.`,
        { slug },
        { next: 'List the published boards at GET /v1/public/boards.' },
      );
    }
    const listed = (await listedTasks(db, [slug])).get(slug) ?? [];
    return {
      ...presentBoardSummary(board, listed, this.baseUrl),
      tasks: listed.map(presentListedTask),
    };
  }
}
