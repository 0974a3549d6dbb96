import { and, desc, eq, ilike, lt, or, type SQL } from 'drizzle-orm';
import { openCursor, signCursor } from '../../kernel/cursor.ts';
import type { Executor } from '../../storage/database.ts';
import { containsPattern } from '../../storage/like.ts';
import { skillDrafts } from './tables.ts';

export interface DraftPage {
  q?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** GET /v1/skills/drafts: the account's drafts, newest first, searched in SQL before the page is cut. */
export async function listDrafts(ex: Executor, secret: string, ownerId: string, q: DraftPage) {
  const where: SQL[] = [eq(skillDrafts.ownerId, ownerId)];
  if (q.q) {
    const like = containsPattern(q.q);
    const match = or(ilike(skillDrafts.name, like), ilike(skillDrafts.description, like));
    if (match) where.push(match);
  }
  const binding = JSON.stringify(['skill-drafts', ownerId, q.q ?? null]);
  if (q.cursor)
    where.push(lt(skillDrafts.id, String(openCursor<{ id: string }>(secret, binding, q.cursor).id)));
  const rows = await ex
    .select()
    .from(skillDrafts)
    .where(and(...where))
    .orderBy(desc(skillDrafts.id))
    .limit(q.limit + 1);
  const shown = rows.slice(0, q.limit);
  const last = shown.at(-1);
  return {
    drafts: shown.map((d) => ({
      draft_id: d.id,
      skill_id: d.skillId,
      name: d.name,
      description: d.description,
      tags: d.tags,
      revision: d.revision,
      author_id: d.authorAgentId,
      updated_at: d.updatedAt.toISOString(),
    })),
    next_cursor: rows.length > q.limit && last ? signCursor(secret, binding, { id: last.id }) : null,
  };
}
