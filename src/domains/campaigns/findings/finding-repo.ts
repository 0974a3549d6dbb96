import { and, asc, desc, eq, inArray, lt, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import { findingsVisible, reviewsVisible, type Viewer } from '../audience.ts';
import { findingReviews, findings } from './tables.ts';

/** Queries over findings and reviews that several files share; every read takes the viewer's rule. */

export type FindingRow = typeof findings.$inferSelect;
export type ReviewRow = typeof findingReviews.$inferSelect;

/** The finding if the viewer may see it; locked for the transaction when `lock` (a review changes its status). */
export async function visibleFinding(
  ex: Executor,
  viewer: Viewer,
  findingId: string,
  lock = false,
): Promise<FindingRow | null> {
  const query = ex
    .select()
    .from(findings)
    .where(and(eq(findings.id, findingId), findingsVisible(viewer)));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

/** The reviews of these findings the viewer may see, oldest first, by finding. */
export async function visibleReviews(
  ex: Executor,
  viewer: Viewer,
  findingIds: string[],
): Promise<Map<string, ReviewRow[]>> {
  const byFinding = new Map<string, ReviewRow[]>(findingIds.map((id) => [id, []]));
  if (findingIds.length === 0) return byFinding;
  const rows = await ex
    .select({ review: findingReviews })
    .from(findingReviews)
    .innerJoin(findings, eq(findings.id, findingReviews.findingId))
    .where(and(inArray(findingReviews.findingId, findingIds), reviewsVisible(viewer)))
    .orderBy(asc(findingReviews.createdAt), asc(findingReviews.id));
  for (const { review } of rows) byFinding.get(review.findingId)?.push(review);
  return byFinding;
}

/** Every verdict given on a finding, whoever may see them: the status follows from all of them. */
export async function allVerdicts(ex: Executor, findingId: string): Promise<string[]> {
  const rows = await ex
    .select({ verdict: findingReviews.verdict })
    .from(findingReviews)
    .where(eq(findingReviews.findingId, findingId));
  return rows.map((r) => r.verdict);
}

/**
 * Whether the viewer may see fewer reviews than exist: a participant under BLIND_EXPERIMENT (or
 * TASK_SCOPED). For such a viewer a finding's status and last change follow only the reviews it
 * may see, or the status would tell it another participant's verdict.
 */
export function seesSomeReviews(v: Viewer): boolean {
  return (
    v.role === 'PARTICIPANT' &&
    (v.campaign.visibility === 'BLIND_EXPERIMENT' || v.campaign.visibility === 'TASK_SCOPED')
  );
}

/** The finding's status as this viewer may know it (status.ts's rule over the reviews it sees), as SQL. */
function statusFor(v: Viewer): SQL {
  if (!seesSomeReviews(v)) return sql`${findings.status}`;
  const seen = (verdict: SQL) => sql`exists (select 1 from ${findingReviews}
    where ${findingReviews.findingId} = ${findings.id} and ${reviewsVisible(v)} ${verdict})`;
  return sql`case when ${seen(sql`and ${findingReviews.verdict} = 'CONTESTED'`)} then 'CONTESTED'
    when ${seen(sql`and ${findingReviews.verdict} = 'SUPPORTED'`)} then 'SUPPORTED'
    when ${seen(sql``)} then 'INSUFFICIENT_EVIDENCE' else 'UNREVIEWED' end`;
}

export interface FindingFilters {
  status?: string | undefined;
  taskId?: string | undefined;
  authorAgentId?: string | undefined;
  q?: string | undefined;
  beforeId?: string | undefined;
}

/** One page (limit + 1 rows, to know whether more follow) of visible findings, newest first. */
export async function listVisibleFindings(
  ex: Executor,
  viewer: Viewer,
  f: FindingFilters,
  limit: number,
): Promise<FindingRow[]> {
  const conditions: SQL[] = [findingsVisible(viewer)];
  if (f.status) conditions.push(sql`${statusFor(viewer)} = ${f.status}`);
  if (f.taskId) conditions.push(eq(findings.taskId, f.taskId));
  if (f.authorAgentId) conditions.push(eq(findings.authorAgentId, f.authorAgentId));
  if (f.q) conditions.push(sql`position(lower(${f.q}) in lower(${findings.claim})) > 0`);
  if (f.beforeId) conditions.push(lt(findings.id, f.beforeId));
  return ex
    .select()
    .from(findings)
    .where(and(...conditions))
    .orderBy(desc(findings.id))
    .limit(limit + 1);
}
