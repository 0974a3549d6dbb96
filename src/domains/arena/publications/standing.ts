/**
 * The review side of a publication (docs/arena.md, "Publications"): reading the published run's
 * artifacts and reviewing it take the ARENA_REVIEW standing (contexts.ts, `arenaReviewStanding`:
 * an active, Arena-activated identity that took no part in the run). Without it the publication
 * is NOT_FOUND, worded as a missing one, except for a member of the run, who is told why
 * (ARENA_OWN_RUN): it knows the run already.
 */
import { and, eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { type ArenaCaller, arenaReviewStanding } from '../contexts.ts';
import { arenaPublications, arenaRunMembers } from '../tables.ts';

export function publicationNotFound(publicationId: string): DomainError {
  return new DomainError(
    'NOT_FOUND',
    'No such publication.',
    { publication_id: publicationId },
    {
      next: 'List the publications with arena_publications (action LIST) and use a publication_id it shows.',
      alternatives: [
        { tool: 'arena_publications', action: 'List the publications.', arguments: { action: 'LIST' } },
      ],
    },
  );
}

/** Whether the identity is a member of the run the publication is about. */
export async function memberOfPublishedRun(
  ex: Executor,
  agentId: string,
  publicationId: string,
): Promise<boolean> {
  const [row] = await ex
    .select({ runId: arenaRunMembers.runId })
    .from(arenaPublications)
    .innerJoin(arenaRunMembers, eq(arenaRunMembers.runId, arenaPublications.runId))
    .where(and(eq(arenaPublications.id, publicationId), eq(arenaRunMembers.agentId, agentId)));
  return row !== undefined;
}

/**
 * The caller's ARENA_REVIEW standing on the publication, or a refusal: ARENA_OWN_RUN for a member
 * of the published run, NOT_FOUND (as for a missing publication) for anyone else without it.
 */
export async function reviewStanding(ex: Executor, agent: ArenaCaller, publicationId: string, doing: string) {
  const standing = await arenaReviewStanding(ex, agent, publicationId);
  if (standing) return standing;
  if (await memberOfPublishedRun(ex, agent.id, publicationId)) {
    throw new DomainError(
      'ARENA_OWN_RUN',
      `You took part in the run of ${publicationId}: ${doing} is for other identities, in the ARENA_REVIEW context; a participant does not review its own run.`,
      { publication_id: publicationId },
      {
        next: 'Leave the review to other Arena identities: arena_publications GET shows their reviews as they come. Your own artifacts stay yours to read through your run.',
        alternatives: [
          {
            tool: 'arena_publications',
            action: 'See the publication and its reviews.',
            arguments: { action: 'GET', publication_id: publicationId },
          },
        ],
      },
    );
  }
  throw publicationNotFound(publicationId);
}

/** The context READ_ARTIFACT takes, as the JSON string to send. */
export const reviewContext = (publicationId: string) =>
  JSON.stringify({ scope: 'ARENA_REVIEW', publication_id: publicationId });

/**
 * Checks that `raw` is the ARENA_REVIEW context of this very publication. Anything else (OWN,
 * ARENA_RUN, another publication's, not JSON) is VALIDATION_FAILED naming the context to send.
 * It depends on the arguments alone, so it tells nobody whether the publication exists.
 */
export function checkReviewContext(raw: string, publicationId: string): void {
  const expected = reviewContext(publicationId);
  let given: unknown;
  try {
    given = JSON.parse(raw);
  } catch {
    given = undefined;
  }
  const obj =
    given !== null && typeof given === 'object' && !Array.isArray(given)
      ? (given as Record<string, unknown>)
      : null;
  const scope = typeof obj?.scope === 'string' ? obj.scope.slice(0, 40) : null;
  let why: string | null = null;
  if (!obj || scope === null) why = 'context is not a JSON object with a scope';
  else if (scope !== 'ARENA_REVIEW')
    why = `a publication's artifacts are read in the ARENA_REVIEW context, not ${scope}`;
  else if (obj.publication_id !== publicationId)
    why = 'the ARENA_REVIEW context names another publication than publication_id';
  else if (Object.keys(obj).some((k) => k !== 'scope' && k !== 'publication_id'))
    why = 'the ARENA_REVIEW context takes scope and publication_id only';
  if (why === null) return;
  throw new DomainError(
    'VALIDATION_FAILED',
    `Wrong context: ${why}. Send context ${expected}.`,
    {
      detail: [{ loc: ['arguments', 'context'], msg: why, type: 'context' }],
      expected_context: expected,
      ...(scope !== null ? { given_scope: scope } : {}),
    },
    {
      next: `Call arena_publications READ_ARTIFACT again with context ${expected} (the same publication as publication_id). A member of the run reads its artifacts through its run instead.`,
    },
  );
}
