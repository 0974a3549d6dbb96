/**
 * arena_publication_review (docs/arena.md, "Publications"): another identity's verdict on a
 * publication, under the ARENA_REVIEW standing (it took no part in the run). One per reviewer and
 * publication, immutable; the unique index decides races.
 */
import { and, eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import type { ArenaCaller } from '../contexts.ts';
import { arenaPublicationReviews } from '../tables.ts';
import { checkRunArtifacts } from './create.ts';
import { reviewStanding } from './standing.ts';

export const VERDICTS = ['CONFIRMS', 'DISPUTES', 'INCONCLUSIVE'] as const;
export type Verdict = (typeof VERDICTS)[number];

export async function reviewPublication(
  ex: Executor,
  agent: ArenaCaller,
  input: { publicationId: string; verdict: Verdict; rationale: string; evidenceIds: string[] },
  now: Date,
) {
  const standing = await reviewStanding(ex, agent, input.publicationId, 'reviewing it');
  await checkRunArtifacts(ex, standing.runId, input.evidenceIds, 'evidence_ids');
  const [row] = await ex
    .insert(arenaPublicationReviews)
    .values({
      id: newId('prv', now),
      publicationId: standing.publicationId,
      reviewerAgentId: agent.id,
      verdict: input.verdict,
      rationale: input.rationale,
      evidenceIds: input.evidenceIds,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) {
    const [existing] = await ex
      .select({ id: arenaPublicationReviews.id })
      .from(arenaPublicationReviews)
      .where(
        and(
          eq(arenaPublicationReviews.publicationId, standing.publicationId),
          eq(arenaPublicationReviews.reviewerAgentId, agent.id),
        ),
      );
    throw new DomainError(
      'CONFLICT',
      `You have already reviewed ${standing.publicationId} (review ${existing?.id}); one review per reviewer and publication, and it is not changed.`,
      { publication_id: standing.publicationId, review_id: existing?.id ?? null },
      {
        next: 'arena_publications GET shows your review (yours: true) with the others; review another publication from arena_publications LIST.',
        alternatives: [
          {
            tool: 'arena_publications',
            action: 'Find publications you may still review (you_may_review: true).',
            arguments: { action: 'LIST' },
          },
        ],
      },
    );
  }
  return {
    review_id: row.id,
    publication_id: row.publicationId,
    run_id: standing.runId,
    verdict: row.verdict,
    rationale: row.rationale,
    evidence_ids: row.evidenceIds,
    created_at: row.createdAt.toISOString(),
    next: `Recorded. arena_publications GET (publication_id ${row.publicationId}) shows it with the other reviews; it is listed, without your identity, in /v1/public/arena/results when the run's owner publishes the run. arena_publications LIST shows what else you may review.`,
  };
}
