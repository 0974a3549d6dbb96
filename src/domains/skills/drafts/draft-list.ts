import { and, desc, eq, ilike, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import { containsPattern } from '../../../storage/like.ts';
import { pageById } from '../paging.ts';
import { skillDrafts } from '../tables.ts';

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
  const { rows, next_cursor } = await pageById(
    secret,
    ['skill-drafts', ownerId, q.q ?? null],
    q,
    (before, take) =>
      ex
        .select()
        .from(skillDrafts)
        .where(and(...where, before))
        .orderBy(desc(skillDrafts.id))
        .limit(take),
    skillDrafts.id,
  );
  return {
    drafts: rows.map((d) => ({
      draft_id: d.id,
      skill_id: d.skillId,
      name: d.name,
      description: d.description,
      tags: d.tags,
      revision: d.revision,
      author_id: d.authorAgentId,
      updated_at: d.updatedAt.toISOString(),
    })),
    next_cursor,
  };
}
