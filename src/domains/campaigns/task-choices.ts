import { and, desc, eq, lt } from 'drizzle-orm';
import { openCursor, signCursor } from '../../kernel/cursor.ts';
import { cutPage } from '../../kernel/paging.ts';
import type { Executor } from '../../storage/database.ts';
import { CAMPAIGN_LIMITS } from './limits.ts';
import { tasks } from './tables.ts';

/**
 * The campaign's tasks as choices for a form (SPEC `GET /v1/research/campaigns/{id}/task-choices`):
 * id, title and status only, newest first (by id, so the order is stable), a page of `limit`
 * (1-200, default 200) with a signed cursor bound to the owner and the campaign. The caller has
 * checked that the owner is the campaign's owner of record, who sees every task in it.
 */
export async function taskChoices(
  ex: Executor,
  ownerId: string,
  campaignId: string,
  page: { cursor?: string | undefined; limit?: number | undefined },
  secret: string,
) {
  const binding = `task_choices:${ownerId}:${campaignId}`;
  const before = page.cursor
    ? openCursor<{ before?: unknown }>(secret, binding, page.cursor).before
    : undefined;
  const limit = page.limit ?? CAMPAIGN_LIMITS.taskChoices.default;
  const rows = await ex
    .select({ id: tasks.id, title: tasks.title, status: tasks.status })
    .from(tasks)
    .where(
      and(eq(tasks.campaignId, campaignId), typeof before === 'string' ? lt(tasks.id, before) : undefined),
    )
    .orderBy(desc(tasks.id))
    .limit(limit + 1);
  const choices = cutPage(rows, limit, (last) => signCursor(secret, binding, { before: last.id }));
  return {
    campaign_id: campaignId,
    choices: choices.rows.map((t) => ({ task_id: t.id, title: t.title, status: t.status })),
    next_cursor: choices.next,
  };
}
