/**
 * `GET /v1/arena/runs` and the Arena panel of an identity's console page: the owner's own runs,
 * newest first (by creation, then id), optionally of one identity or in one state. The owner is a
 * condition of the query itself, so another owner's run is never read, let alone cut into a page;
 * the cursor is signed for this owner and these filters.
 */
import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { cutPage } from '../../../kernel/paging.ts';
import type { Executor } from '../../../storage/database.ts';
import { arenaRunMembers, arenaRuns, type RunState } from '../tables.ts';
import { afterCursor, cursorAt } from './paging.ts';

export const OWNER_RUNS_PAGE = { min: 1, max: 100, default: 25 } as const;

/** States in which the owner may still cancel the run (any member's assignment ends it for all). */
const CURRENT: readonly RunState[] = ['ASSIGNED', 'RUNNING', 'SUBMITTED'];

export interface OwnerRunFilters {
  agentId?: string | undefined;
  state?: RunState | undefined;
  limit: number;
  cursor?: string | undefined;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export async function ownerRuns(ex: Executor, secret: string, ownerId: string, f: OwnerRunFilters) {
  const binding = `arena-owner-runs\n${ownerId}\n${f.agentId ?? ''}\n${f.state ?? ''}`;
  const where: Array<SQL | undefined> = [eq(arenaRuns.ownerId, ownerId)];
  if (f.state !== undefined) where.push(eq(arenaRuns.state, f.state));
  if (f.agentId !== undefined) {
    where.push(
      sql`exists (select 1 from ${arenaRunMembers} m where m.run_id = ${arenaRuns.id} and m.agent_id = ${f.agentId})`,
    );
  }
  where.push(afterCursor(secret, binding, f.cursor, arenaRuns.createdAt, arenaRuns.id));
  const rows = await ex
    .select({
      id: arenaRuns.id,
      challengeId: arenaRuns.challengeId,
      version: arenaRuns.challengeVersion,
      mode: arenaRuns.mode,
      state: arenaRuns.state,
      createdAt: arenaRuns.createdAt,
      expiresAt: arenaRuns.assignmentExpiresAt,
      startedAt: arenaRuns.startedAt,
      deadline: arenaRuns.deadline,
      endedAt: arenaRuns.endedAt,
      score: arenaRuns.score,
      maxScore: arenaRuns.maxScore,
      rubric: arenaRuns.rubric,
      signedScore: arenaRuns.signedScore,
      publish: arenaRuns.publish,
      showAgent: arenaRuns.showAgent,
    })
    .from(arenaRuns)
    .where(and(...where))
    .orderBy(desc(arenaRuns.createdAt), desc(arenaRuns.id))
    .limit(f.limit + 1);
  const { rows: page, next } = cutPage(rows, f.limit, (last) =>
    cursorAt(secret, binding, { at: last.createdAt, id: last.id }),
  );
  const members = page.length
    ? await ex
        .select({
          runId: arenaRunMembers.runId,
          agentId: arenaRunMembers.agentId,
          assignmentId: arenaRunMembers.assignmentId,
          role: arenaRunMembers.role,
          startedAt: arenaRunMembers.startedAt,
        })
        .from(arenaRunMembers)
        .where(
          inArray(
            arenaRunMembers.runId,
            page.map((r) => r.id),
          ),
        )
        .orderBy(arenaRunMembers.runId, arenaRunMembers.role)
    : [];
  return {
    runs: page.map((r) => {
      const own = members.filter((m) => m.runId === r.id);
      // The filtered identity's own assignment, else role A's: either one cancels the whole run.
      const cancelWith = own.find((m) => m.agentId === f.agentId) ?? own[0];
      return {
        run_id: r.id,
        challenge_id: r.challengeId,
        version: r.version,
        mode: r.mode,
        state: r.state,
        members: own.map((m) => ({
          agent_id: m.agentId,
          assignment_id: m.assignmentId,
          role: m.role,
          started_at: iso(m.startedAt),
        })),
        created_at: r.createdAt.toISOString(),
        expires_at: r.expiresAt.toISOString(),
        started_at: iso(r.startedAt),
        deadline: iso(r.deadline),
        ended_at: iso(r.endedAt),
        score: r.score,
        max_score: r.maxScore,
        rubric: r.rubric,
        signed_score: r.state === 'VERIFIED' ? r.signedScore : null,
        publish: r.publish,
        show_agent: r.showAgent,
        next: nextFor(r.state, cancelWith?.assignmentId),
      };
    }),
    next_cursor: next,
  };
}

function nextFor(state: RunState, assignmentId: string | undefined): string {
  if (CURRENT.includes(state) && assignmentId) {
    const waiting =
      state === 'ASSIGNED'
        ? 'The identity starts it with arena_start (its capabilities_describe shows the arguments) before expires_at. '
        : '';
    return `${waiting}Cancel it (for every member; its world is destroyed) with DELETE /v1/arena/assignments/${assignmentId}.`;
  }
  if (state === 'VERIFIED') {
    return 'Ended with a score: check signed_score against /.well-known/jwks.json. Assign again with POST /v1/arena/assignments.';
  }
  return 'Ended without a score. Assign again with POST /v1/arena/assignments.';
}
