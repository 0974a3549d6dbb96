import { and, desc, eq, ilike, isNull, or, type SQL, sql } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import { containsPattern } from '../../storage/like.ts';
import { type Actor, inCampaign, ownVersionsSql, taskStanding, type VersionRow } from './access.ts';
import { arenaPackagedSql, arenaStandingOf } from './arena/access.ts';
import { contextString, OWN, type SkillContext } from './context.ts';
import { pageById } from './paging.ts';
import { campaignSkills, skills, skillVersions, taskSkills } from './tables.ts';

/**
 * skill_list and GET /v1/skills: the versions a context gives the caller, filtered and cut into
 * pages in SQL, newest first, with a cursor bound to the caller, the context and the filters.
 */

export interface ListFilters {
  q?: string | undefined;
  status?: 'AVAILABLE' | 'BLOCKED' | undefined;
  authorId?: string | undefined;
  compatibility?: string | undefined;
  lifecycleStatus?: 'ACTIVE' | 'ARCHIVED' | undefined;
  tags?: string[] | undefined;
  limit: number;
  cursor?: string | undefined;
}

export async function listVersions(
  ex: Executor,
  secret: string,
  actor: Actor,
  context: SkillContext,
  filters: ListFilters,
  now: Date,
): Promise<{ rows: Array<VersionRow & { lifecycleStatus: string }>; next_cursor: string | null }> {
  const where: SQL[] = [await scopeSql(ex, actor, context, now)];
  if (filters.q) {
    const q = containsPattern(filters.q);
    const match = or(ilike(skillVersions.name, q), ilike(skillVersions.description, q));
    if (match) where.push(match);
  }
  if (filters.status) where.push(eq(skillVersions.status, filters.status));
  if (filters.authorId) where.push(eq(skillVersions.authorAgentId, filters.authorId));
  if (filters.compatibility)
    where.push(ilike(skillVersions.compatibility, containsPattern(filters.compatibility)));
  if (filters.lifecycleStatus) where.push(eq(skills.lifecycleStatus, filters.lifecycleStatus));
  if (filters.tags && filters.tags.length > 0) {
    where.push(sql`${skillVersions.tags} @> ${JSON.stringify(filters.tags)}::jsonb`);
  }
  const binding = [
    'skills',
    actor.ownerId,
    actor.agentId,
    contextString(context),
    filters.q ?? null,
    filters.status ?? null,
    filters.authorId ?? null,
    filters.compatibility ?? null,
    filters.lifecycleStatus ?? null,
    filters.tags ?? null,
  ];
  return pageById(
    secret,
    binding,
    filters,
    async (before, take) =>
      (
        await ex
          .select({ version: skillVersions, lifecycleStatus: skills.lifecycleStatus })
          .from(skillVersions)
          .innerJoin(skills, eq(skills.id, skillVersions.skillId))
          .where(and(...where, before))
          .orderBy(desc(skillVersions.id))
          .limit(take)
      ).map((r) => ({ ...r.version, lifecycleStatus: r.lifecycleStatus })),
    skillVersions.id,
  );
}

/** The versions a context gives the actor, as one SQL condition; a context it has no standing in is refused. */
async function scopeSql(ex: Executor, actor: Actor, context: SkillContext, now: Date): Promise<SQL> {
  switch (context.scope) {
    case 'OWN':
      return ownVersionsSql(actor);
    case 'CAMPAIGN':
      if (!(await inCampaign(ex, actor, context.campaign_id))) throw noStanding(context);
      return sql`exists (select 1 from ${campaignSkills} where ${campaignSkills.versionId} = ${skillVersions.id}
        and ${campaignSkills.campaignId} = ${context.campaign_id} and ${campaignSkills.state} = 'ACCEPTED')`;
    case 'TASK':
      if ((await taskStanding(ex, actor, context.task_id, now)) === false) throw noStanding(context);
      return sql`exists (select 1 from ${taskSkills} where ${taskSkills.versionId} = ${skillVersions.id}
        and ${taskSkills.taskId} = ${context.task_id} and ${isNull(taskSkills.detachedAt)})`;
    case 'ARENA_RUN':
    case 'ARENA_REVIEW': {
      const standing = await arenaStandingOf(ex, actor, context, now);
      if (!standing) throw noStanding(context);
      return arenaPackagedSql(standing);
    }
  }
}

function noStanding(context: SkillContext): DomainError {
  const why =
    context.scope === 'CAMPAIGN'
      ? 'you are not an active member of that campaign (nor its owner)'
      : context.scope === 'TASK'
        ? 'you do not hold that task’s current lease (nor own its campaign)'
        : context.scope === 'ARENA_RUN'
          ? 'it is not a run you started that still takes work (with the Arena on for you)'
          : 'there is no such publication, or you took part in its run (or the Arena is off for you)';
  return new DomainError(
    'SKILL_CONTEXT_DENIED',
    `The context ${contextString(context)} gives you no skills: ${why}.`,
    { context },
    {
      next: 'List your own and granted versions with skill_list(context: "{\\"scope\\":\\"OWN\\"}").',
      alternatives: [
        {
          tool: 'skill_list',
          action: 'List with context {"scope":"OWN"}.',
          arguments: { context: contextString(OWN) },
        },
      ],
    },
  );
}
