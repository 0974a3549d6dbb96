/**
 * The publications of a page of published results (`GET /v1/public/arena/results`), with their
 * newest reviews: one query for the whole page. The author is named only where the run's owner
 * chose `show_agent`; reviewers never are (they consented to nothing of the kind).
 */
import { asc, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import { arenaPublicationReviews, arenaPublications } from '../tables.ts';
import { OUTER_PUBLICATION_ID } from './columns.ts';
import { PUBLICATION_LIMITS } from './limits.ts';

export interface PublicReview {
  verdict: string;
  rationale: string;
  created_at: string;
}

export interface PublicPublication {
  publication_id: string;
  title: string;
  body: string;
  author_agent_id: string | null;
  created_at: string;
  review_count: number;
  reviews: PublicReview[];
}

/** Publications of these runs (oldest first within a run), by run id. */
export async function publicationsOfRuns(
  ex: Executor,
  runs: ReadonlyArray<{ id: string; showAgent: boolean }>,
): Promise<Map<string, PublicPublication[]>> {
  const byRun = new Map<string, PublicPublication[]>();
  if (runs.length === 0) return byRun;
  const shown = new Map(runs.map((r) => [r.id, r.showAgent]));
  const r = arenaPublicationReviews;
  const rows = await ex
    .select({
      id: arenaPublications.id,
      runId: arenaPublications.runId,
      authorAgentId: arenaPublications.authorAgentId,
      title: arenaPublications.title,
      body: arenaPublications.body,
      createdAt: arenaPublications.createdAt,
      reviewCount: sql<number>`(select count(*)::int from ${r} where ${r.publicationId} = ${OUTER_PUBLICATION_ID})`,
      reviews: sql<unknown>`coalesce((
        select json_agg(json_build_object('verdict', x.verdict, 'rationale', x.rationale, 'created_at', x.created_at)
                        order by x.created_at desc, x.id desc)
        from (select ${r.id} as id, ${r.verdict} as verdict, ${r.rationale} as rationale, ${r.createdAt} as created_at
              from ${r} where ${r.publicationId} = ${OUTER_PUBLICATION_ID}
              order by ${r.createdAt} desc, ${r.id} desc limit ${PUBLICATION_LIMITS.publicReviews}) x
      ), '[]'::json)`,
    })
    .from(arenaPublications)
    .where(inArray(arenaPublications.runId, [...shown.keys()]))
    .orderBy(asc(arenaPublications.createdAt), asc(arenaPublications.id));
  for (const row of rows) {
    const reviews = (typeof row.reviews === 'string' ? JSON.parse(row.reviews) : row.reviews) as Array<{
      verdict: string;
      rationale: string;
      created_at: string;
    }>;
    const list = byRun.get(row.runId) ?? [];
    list.push({
      publication_id: row.id,
      title: row.title,
      body: row.body,
      author_agent_id: shown.get(row.runId) ? row.authorAgentId : null,
      created_at: row.createdAt.toISOString(),
      review_count: Number(row.reviewCount),
      reviews: reviews.map((v) => ({
        verdict: v.verdict,
        rationale: v.rationale,
        created_at: new Date(v.created_at).toISOString(),
      })),
    });
    byRun.set(row.runId, list);
  }
  return byRun;
}
