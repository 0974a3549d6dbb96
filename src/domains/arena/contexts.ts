/**
 * The two Arena standings other areas read under (SPEC Skills contexts ARENA_RUN and
 * ARENA_REVIEW; docs/arena.md, "Publications"). Each answers the challenge version the standing
 * reaches, or null: callers refuse a null exactly like a missing object, so a context never tells
 * a stranger that a run or publication exists.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import { arenaPublications, arenaRunMembers, arenaRuns } from './tables.ts';

/** The caller as the identity area loaded it for this call. */
export interface ArenaCaller {
  id: string;
  status: string;
  arenaEnabled: boolean;
}

/** Only an active identity its owner turned the Arena on for holds an Arena standing. */
const activated = (agent: ArenaCaller) => agent.status === 'ACTIVE' && agent.arenaEnabled;

export interface ArenaStanding {
  runId: string;
  challengeId: string;
  challengeVersion: number;
}

/**
 * ARENA_RUN: the caller is a member of the run, has started it, and the run still takes work
 * (RUNNING or SUBMITTED, before its deadline). The caller's Arena activation (as loaded for this
 * call) is checked too, so an owner turning the Arena off stops the next read.
 */
export async function arenaRunStanding(
  ex: Executor,
  agent: ArenaCaller,
  runId: string,
  now: Date,
): Promise<ArenaStanding | null> {
  if (!activated(agent)) return null;
  const agentId = agent.id;
  const [row] = await ex
    .select({
      runId: arenaRuns.id,
      challengeId: arenaRuns.challengeId,
      challengeVersion: arenaRuns.challengeVersion,
    })
    .from(arenaRuns)
    .innerJoin(arenaRunMembers, eq(arenaRunMembers.runId, arenaRuns.id))
    .where(
      and(
        eq(arenaRuns.id, runId),
        eq(arenaRunMembers.agentId, agentId),
        sql`${arenaRunMembers.startedAt} is not null`,
        inArray(arenaRuns.state, ['RUNNING', 'SUBMITTED']),
        sql`(${arenaRuns.deadline} is null or ${arenaRuns.deadline} > ${now})`,
      ),
    );
  return row ?? null;
}

/**
 * ARENA_REVIEW: the publication exists, the caller is an active, Arena-activated identity, and
 * it took no part in the published run (a participant cannot review its own run).
 */
export async function arenaReviewStanding(
  ex: Executor,
  agent: ArenaCaller,
  publicationId: string,
): Promise<(ArenaStanding & { publicationId: string }) | null> {
  if (!activated(agent)) return null;
  const agentId = agent.id;
  const [row] = await ex
    .select({
      publicationId: arenaPublications.id,
      runId: arenaRuns.id,
      challengeId: arenaRuns.challengeId,
      challengeVersion: arenaRuns.challengeVersion,
    })
    .from(arenaPublications)
    .innerJoin(arenaRuns, eq(arenaRuns.id, arenaPublications.runId))
    .where(
      and(
        eq(arenaPublications.id, publicationId),
        sql`not exists (select 1 from ${arenaRunMembers} where ${arenaRunMembers.runId} = ${arenaRuns.id} and ${arenaRunMembers.agentId} = ${agentId})`,
      ),
    );
  return row ?? null;
}

/**
 * A run the identity took part in (it started it), in any state, with the span it lasted: from
 * its own start to the run's end (or its deadline, or now, while it goes on). Skills use it to
 * tell whether a version was used in the run (docs/skills.md, "Arena packages").
 */
export async function arenaRunTaken(
  ex: Executor,
  agentId: string,
  runId: string,
): Promise<(ArenaStanding & { from: Date; until: Date | null }) | null> {
  const [row] = await ex
    .select({
      runId: arenaRuns.id,
      challengeId: arenaRuns.challengeId,
      challengeVersion: arenaRuns.challengeVersion,
      startedAt: arenaRunMembers.startedAt,
      endedAt: arenaRuns.endedAt,
      deadline: arenaRuns.deadline,
    })
    .from(arenaRuns)
    .innerJoin(arenaRunMembers, eq(arenaRunMembers.runId, arenaRuns.id))
    .where(and(eq(arenaRuns.id, runId), eq(arenaRunMembers.agentId, agentId)));
  if (!row?.startedAt) return null;
  const ends = [row.endedAt, row.deadline].filter((d): d is Date => d !== null);
  const until = ends.length > 0 ? new Date(Math.min(...ends.map((d) => d.getTime()))) : null;
  return {
    runId: row.runId,
    challengeId: row.challengeId,
    challengeVersion: row.challengeVersion,
    from: row.startedAt,
    until,
  };
}
