import { and, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import {
  type ArenaCaller,
  type ArenaStanding,
  arenaReviewStanding,
  arenaRunStanding,
} from '../../arena/index.ts';
import type { SkillContext } from '../context.ts';
import { arenaSkillPackages, skillVersions } from '../tables.ts';

/**
 * The Arena contexts of skill reads (docs/skills.md, "Arena packages"): ARENA_RUN of a run the
 * caller started and that still takes work, ARENA_REVIEW of a publication of a run it took no
 * part in. Either reaches exactly the versions with a live package for that run's challenge
 * version. The Arena decides the standing (arena/contexts.ts); skills decide what it reaches.
 */

/** The part of the skills Actor (access.ts) an Arena standing needs. */
export interface ArenaActor {
  agentId: string | null;
  arena?: Omit<ArenaCaller, 'id'> | undefined;
}

export type ArenaScope = Extract<SkillContext, { scope: 'ARENA_RUN' | 'ARENA_REVIEW' }>;

/**
 * The challenge version the Arena context gives the actor, or null: an owner (no identity), an
 * identity not activated for the Arena, a run it did not start or that ended, a publication of its
 * own run or none at all are all alike.
 */
export async function arenaStandingOf(
  ex: Executor,
  actor: ArenaActor,
  context: ArenaScope,
  now: Date,
): Promise<ArenaStanding | null> {
  if (actor.agentId === null || !actor.arena) return null;
  const agent = { ...actor.arena, id: actor.agentId };
  return context.scope === 'ARENA_RUN'
    ? arenaRunStanding(ex, agent, context.run_id, now)
    : arenaReviewStanding(ex, agent, context.publication_id);
}

/** SQL: a live package of the row's version to the standing's challenge version exists. */
export function arenaPackagedSql(standing: ArenaStanding): SQL {
  return sql`exists (select 1 from ${arenaSkillPackages} where ${arenaSkillPackages.versionId} = ${skillVersions.id}
    and ${arenaSkillPackages.challengeId} = ${standing.challengeId}
    and ${arenaSkillPackages.challengeVersion} = ${standing.challengeVersion}
    and ${arenaSkillPackages.withdrawnAt} is null)`;
}

/** Whether the version has a live package to the standing's challenge version. */
export async function arenaPackaged(ex: Executor, standing: ArenaStanding, versionId: string) {
  const [row] = await ex
    .select({ id: arenaSkillPackages.id })
    .from(arenaSkillPackages)
    .where(
      and(
        eq(arenaSkillPackages.versionId, versionId),
        eq(arenaSkillPackages.challengeId, standing.challengeId),
        eq(arenaSkillPackages.challengeVersion, standing.challengeVersion),
        isNull(arenaSkillPackages.withdrawnAt),
      ),
    );
  return row !== undefined;
}
