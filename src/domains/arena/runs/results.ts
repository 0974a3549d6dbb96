/**
 * `GET /v1/public/arena/results`: the verified runs their owners publish, newest first, each with
 * its signed score, so anyone can check it against the JWKS without trusting us. The identity is
 * shown only where its owner chose so at assignment (`show_agent`); otherwise it is null, in the
 * listing and inside the signed payload alike. Each run carries its publications with their
 * newest reviews (docs/arena.md, "Publications"): the author only under the same `show_agent`,
 * reviewers never. The page is three queries whatever its size: the runs, the members of its shown
 * TEAM runs, and its publications with their reviews.
 */
import { and, asc, desc, eq, inArray, type SQL } from 'drizzle-orm';
import { cutPage } from '../../../kernel/paging.ts';
import type { Executor } from '../../../storage/database.ts';
import { publicationsOfRuns } from '../publications/public.ts';
import { arenaRunMembers, arenaRuns } from '../tables.ts';
import { afterCursor, cursorAt } from './paging.ts';

export const RESULTS_PAGE = { min: 1, max: 100, default: 25 } as const;

export async function publishedResults(
  ex: Executor,
  secret: string,
  input: { challengeId?: string | undefined; limit: number; cursor?: string | undefined },
) {
  const binding = `arena-results\n${input.challengeId ?? ''}`;
  const where: Array<SQL | undefined> = [eq(arenaRuns.state, 'VERIFIED'), eq(arenaRuns.publish, true)];
  if (input.challengeId !== undefined) where.push(eq(arenaRuns.challengeId, input.challengeId));
  where.push(afterCursor(secret, binding, input.cursor, arenaRuns.verifiedAt, arenaRuns.id));
  const rows = await ex
    .select({
      id: arenaRuns.id,
      challengeId: arenaRuns.challengeId,
      version: arenaRuns.challengeVersion,
      mode: arenaRuns.mode,
      score: arenaRuns.score,
      maxScore: arenaRuns.maxScore,
      verifiedAt: arenaRuns.verifiedAt,
      verifiedBy: arenaRuns.verifiedBy,
      showAgent: arenaRuns.showAgent,
      signedScore: arenaRuns.signedScore,
    })
    .from(arenaRuns)
    .where(and(...where))
    .orderBy(desc(arenaRuns.verifiedAt), desc(arenaRuns.id))
    .limit(input.limit + 1);
  const { rows: page, next } = cutPage(rows, input.limit, (last) =>
    cursorAt(secret, binding, { at: last.verifiedAt, id: last.id }),
  );
  const teams = new Map<string, string[]>();
  const shownTeams = page.filter((r) => r.mode === 'TEAM' && r.showAgent).map((r) => r.id);
  if (shownTeams.length > 0) {
    const members = await ex
      .select({ runId: arenaRunMembers.runId, agentId: arenaRunMembers.agentId })
      .from(arenaRunMembers)
      .where(inArray(arenaRunMembers.runId, shownTeams))
      .orderBy(asc(arenaRunMembers.runId), asc(arenaRunMembers.role));
    for (const m of members) teams.set(m.runId, [...(teams.get(m.runId) ?? []), m.agentId]);
  }
  const publications = await publicationsOfRuns(ex, page);
  return {
    results: page.map((r) => ({
      run_id: r.id,
      challenge_id: r.challengeId,
      challenge_version: r.version,
      mode: r.mode,
      agent_id: r.showAgent ? r.verifiedBy : null,
      ...(teams.has(r.id) ? { team: teams.get(r.id) } : {}),
      score: r.score,
      max_score: r.maxScore,
      verified_at: r.verifiedAt?.toISOString() ?? null,
      signed_score: r.signedScore,
      publications: publications.get(r.id) ?? [],
    })),
    next_cursor: next,
    verify_with: '/.well-known/jwks.json',
    note: 'Each signed_score is a compact JWS (EdDSA, Ed25519) of the result; check it against the published keys, or offline with "cairn arena verify-score".',
  };
}
