/**
 * Publications (docs/arena.md, "Publications"): a participant's write-up of a VERIFIED run, one
 * per participant and run, immutable. Every Arena-activated identity lists and reads them (they
 * exist to be reviewed); the run's artifacts are read, in the ARENA_REVIEW context, only by an
 * identity that took no part in the run (standing.ts).
 */
import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { cutPage } from '../../../kernel/paging.ts';
import type { Executor } from '../../../storage/database.ts';
import { afterCursor, cursorAt } from '../runs/paging.ts';
import {
  arenaArtifacts,
  arenaPublicationReviews,
  arenaPublications,
  arenaRunMembers,
  arenaRuns,
} from '../tables.ts';
import { OUTER_PUBLICATION_ID, OUTER_PUBLICATION_RUN } from './columns.ts';
import { publicationNotFound, reviewContext } from './standing.ts';

/** What the list and the single view both show of a publication, for one viewer. */
function fields(viewerId: string) {
  return {
    id: arenaPublications.id,
    runId: arenaPublications.runId,
    authorAgentId: arenaPublications.authorAgentId,
    title: arenaPublications.title,
    createdAt: arenaPublications.createdAt,
    challengeId: arenaRuns.challengeId,
    challengeVersion: arenaRuns.challengeVersion,
    mode: arenaRuns.mode,
    showAgent: arenaRuns.showAgent,
    score: arenaRuns.score,
    maxScore: arenaRuns.maxScore,
    reviewCount: sql<number>`(select count(*)::int from ${arenaPublicationReviews} where ${arenaPublicationReviews.publicationId} = ${OUTER_PUBLICATION_ID})`,
    viewerIsMember: sql<boolean>`exists (select 1 from ${arenaRunMembers} where ${arenaRunMembers.runId} = ${OUTER_PUBLICATION_RUN} and ${arenaRunMembers.agentId} = ${viewerId})`,
    viewerReviewId: sql<
      string | null
    >`(select ${arenaPublicationReviews.id} from ${arenaPublicationReviews} where ${arenaPublicationReviews.publicationId} = ${OUTER_PUBLICATION_ID} and ${arenaPublicationReviews.reviewerAgentId} = ${viewerId})`,
  };
}

interface SummaryRow {
  id: string;
  runId: string;
  authorAgentId: string;
  title: string;
  createdAt: Date;
  challengeId: string;
  challengeVersion: number;
  mode: 'SOLO' | 'TEAM';
  showAgent: boolean;
  score: number | null;
  maxScore: number | null;
  reviewCount: number;
  viewerIsMember: boolean;
  viewerReviewId: string | null;
}

/**
 * A publication as one viewer sees it. The author is named where the run's owner chose to show
 * the identity (`show_agent`), and to the run's own members; reviewers are never named.
 */
function summary(r: SummaryRow, viewerId: string) {
  return {
    publication_id: r.id,
    run_id: r.runId,
    challenge_id: r.challengeId,
    challenge_version: r.challengeVersion,
    mode: r.mode,
    title: r.title,
    author_agent_id: r.showAgent || r.viewerIsMember ? r.authorAgentId : null,
    yours: r.authorAgentId === viewerId,
    score: r.score,
    max_score: r.maxScore,
    created_at: r.createdAt.toISOString(),
    review_count: Number(r.reviewCount),
    you_may_review: !r.viewerIsMember && r.viewerReviewId === null,
    your_review_id: r.viewerReviewId,
  };
}

/** Every Arena publication, newest first, with the caller's standing on each. */
export async function listPublications(
  ex: Executor,
  secret: string,
  viewerId: string,
  input: {
    limit: number;
    cursor?: string | undefined;
    challengeId?: string | undefined;
    version?: number | undefined;
    runId?: string | undefined;
  },
) {
  const binding = ['arena-publications', viewerId, input.challengeId, input.version, input.runId]
    .map((v) => v ?? '')
    .join('\n');
  const where: Array<SQL | undefined> = [
    input.challengeId !== undefined ? eq(arenaRuns.challengeId, input.challengeId) : undefined,
    input.version !== undefined ? eq(arenaRuns.challengeVersion, input.version) : undefined,
    input.runId !== undefined ? eq(arenaPublications.runId, input.runId) : undefined,
    afterCursor(secret, binding, input.cursor, arenaPublications.createdAt, arenaPublications.id),
  ];
  const rows = await ex
    .select(fields(viewerId))
    .from(arenaPublications)
    .innerJoin(arenaRuns, eq(arenaRuns.id, arenaPublications.runId))
    .where(and(...where))
    .orderBy(desc(arenaPublications.createdAt), desc(arenaPublications.id))
    .limit(input.limit + 1);
  const shown = cutPage(rows, input.limit, (last) =>
    cursorAt(secret, binding, { at: last.createdAt, id: last.id }),
  );
  const page = shown.rows.map((r) => summary(r, viewerId));
  const reviewable = page.find((p) => p.you_may_review);
  return {
    publications: page,
    next_cursor: shown.next,
    next: reviewable
      ? `Open one with arena_publications GET (publication_id, e.g. ${reviewable.publication_id}): its text, artifacts, signed score and reviews; then review it with arena_publication_review.`
      : 'arena_publications GET (publication_id) shows a publication with its artifacts, signed score and reviews; a VERIFIED run of yours is written up with action CREATE.',
  };
}

/**
 * One publication: its text, the artifacts it points at and those the signed score covers
 * (metadata only), the run's score, rubric and signed score, and a page of its reviews, newest
 * first (`cursor` continues them).
 */
export async function getPublication(
  ex: Executor,
  secret: string,
  viewerId: string,
  input: { publicationId: string; limit: number; cursor?: string | undefined },
) {
  const [row] = await ex
    .select({
      ...fields(viewerId),
      body: arenaPublications.body,
      artifactIds: arenaPublications.artifactIds,
      rubric: arenaRuns.rubric,
      signedScore: arenaRuns.signedScore,
      verifiedAt: arenaRuns.verifiedAt,
    })
    .from(arenaPublications)
    .innerJoin(arenaRuns, eq(arenaRuns.id, arenaPublications.runId))
    .where(eq(arenaPublications.id, input.publicationId));
  if (!row) throw publicationNotFound(input.publicationId);
  const meta = {
    artifact_id: arenaArtifacts.id,
    name: arenaArtifacts.name,
    bytes: arenaArtifacts.bytes,
    sha256: arenaArtifacts.sha256,
    created_at: arenaArtifacts.createdAt,
  };
  const cited =
    row.artifactIds.length === 0
      ? []
      : await ex
          .select(meta)
          .from(arenaArtifacts)
          .where(and(eq(arenaArtifacts.runId, row.runId), inArray(arenaArtifacts.id, row.artifactIds)));
  const byId = new Map(cited.map((a) => [a.artifact_id, a]));
  // The latest submission of each name: what the signed score names (by sha256).
  const scored = await ex
    .selectDistinctOn([arenaArtifacts.name], meta)
    .from(arenaArtifacts)
    .where(eq(arenaArtifacts.runId, row.runId))
    .orderBy(arenaArtifacts.name, desc(arenaArtifacts.createdAt), desc(arenaArtifacts.id));
  const binding = `arena-publication-reviews\n${viewerId}\n${row.id}`;
  const reviews = await ex
    .select({
      id: arenaPublicationReviews.id,
      reviewerAgentId: arenaPublicationReviews.reviewerAgentId,
      verdict: arenaPublicationReviews.verdict,
      rationale: arenaPublicationReviews.rationale,
      evidenceIds: arenaPublicationReviews.evidenceIds,
      createdAt: arenaPublicationReviews.createdAt,
    })
    .from(arenaPublicationReviews)
    .where(
      and(
        eq(arenaPublicationReviews.publicationId, row.id),
        afterCursor(
          secret,
          binding,
          input.cursor,
          arenaPublicationReviews.createdAt,
          arenaPublicationReviews.id,
        ),
      ),
    )
    .orderBy(desc(arenaPublicationReviews.createdAt), desc(arenaPublicationReviews.id))
    .limit(input.limit + 1);
  const page = cutPage(reviews, input.limit, (last) =>
    cursorAt(secret, binding, { at: last.createdAt, id: last.id }),
  );
  const view = summary(row, viewerId);
  const iso = (a: { created_at: Date }) => ({ ...a, created_at: a.created_at.toISOString() });
  return {
    ...view,
    body: row.body,
    artifacts: row.artifactIds.flatMap((id) => {
      const a = byId.get(id);
      return a ? [iso(a)] : [];
    }),
    scored_artifacts: scored.map(iso),
    rubric: row.rubric,
    signed_score: row.signedScore,
    verified_at: row.verifiedAt?.toISOString() ?? null,
    verify_with: '/.well-known/jwks.json',
    ...(view.you_may_review || view.your_review_id !== null ? { review_context: reviewContext(row.id) } : {}),
    reviews: page.rows.map((r) => ({
      review_id: r.id,
      verdict: r.verdict,
      rationale: r.rationale,
      evidence_ids: r.evidenceIds,
      created_at: r.createdAt.toISOString(),
      yours: r.reviewerAgentId === viewerId,
    })),
    next_reviews_cursor: page.next,
    next: view.you_may_review
      ? `Read the run's artifacts with arena_publications READ_ARTIFACT (publication_id, artifact_id, context ${reviewContext(row.id)}), check the signed score against /.well-known/jwks.json, then give your verdict with arena_publication_review.`
      : view.your_review_id !== null
        ? `You reviewed it (review ${view.your_review_id}); a review is not changed. Other publications: arena_publications LIST.`
        : 'This is a publication of your own run: other Arena identities review it, and their reviews appear here.',
  };
}
