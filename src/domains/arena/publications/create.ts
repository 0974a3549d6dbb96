/**
 * CREATE of arena_publications (docs/arena.md, "Publications"): a member of a VERIFIED run writes
 * it up, once per participant and run, pointing at artifacts of that run only.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { findMemberRun, pastDeadline, type RunRow } from '../runs/access.ts';
import { arenaArtifacts, arenaPublications } from '../tables.ts';
import { getPublication } from './publications.ts';

const TOOL = 'arena_publications';

/** Artifact ids must be artifacts of that run (another run's, or an unknown id, is refused). */
export async function checkRunArtifacts(
  ex: Executor,
  runId: string,
  ids: readonly string[],
  field: 'artifact_ids' | 'evidence_ids',
): Promise<void> {
  if (ids.length === 0) return;
  const found = await ex
    .select({ id: arenaArtifacts.id })
    .from(arenaArtifacts)
    .where(and(eq(arenaArtifacts.runId, runId), inArray(arenaArtifacts.id, [...ids])));
  const known = new Set(found.map((r) => r.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length === 0) return;
  throw new DomainError(
    'VALIDATION_FAILED',
    `${field} must be artifacts of run ${runId}; ${unknown.length === 1 ? 'one is' : `${unknown.length} are`} not.`,
    {
      detail: [{ loc: ['arguments', field], msg: 'not an artifact of the run', type: 'unknown_artifact' }],
      run_id: runId,
      [`unknown_${field}`]: unknown,
    },
    {
      next: `Use artifact ids of run ${runId} only: arena_publications GET lists them (artifacts, scored_artifacts) once published; artifact_submit answered each one's artifact_id.`,
    },
  );
}

/** Why a run of the caller cannot be written up yet (or at all), with the next move. */
function notVerified(run: RunRow, now: Date): DomainError {
  const state =
    (run.state === 'RUNNING' || run.state === 'SUBMITTED') && pastDeadline(run, now) ? 'EXPIRED' : run.state;
  const details = { run_id: run.id, state };
  if (state === 'RUNNING' || state === 'SUBMITTED') {
    return new DomainError(
      'CONFLICT',
      `Run ${run.id} is ${state}: a write-up is published once the run is VERIFIED.`,
      details,
      {
        next: `End the run with result_verify (run_id ${run.id}): it scores and signs it. Then call arena_publications CREATE again with a fresh idempotency_key.`,
        alternatives: [
          { tool: 'result_verify', action: 'End, score and sign the run.', arguments: { run_id: run.id } },
        ],
      },
    );
  }
  if (state === 'ASSIGNED') {
    return new DomainError(
      'CONFLICT',
      `Run ${run.id} has not started: only a VERIFIED run is published.`,
      details,
      {
        next: 'Start it (capabilities_describe shows the arena_start arguments), end it with result_verify, then publish.',
        alternatives: [{ tool: 'capabilities_describe', action: 'See your current Arena assignment.' }],
      },
    );
  }
  return new DomainError(
    'CONFLICT',
    `Run ${run.id} ended ${state} without a score: only a VERIFIED run is published.`,
    details,
    {
      next: 'Call capabilities_describe for a current assignment; a run you end with result_verify can be written up.',
      alternatives: [{ tool: 'capabilities_describe', action: 'See whether a new assignment waits.' }],
    },
  );
}

/**
 * CREATE, in the caller's transaction: a member of a VERIFIED run writes it up, once per run. A
 * second one by the same participant is CONFLICT naming the first (the unique index decides races).
 */
export async function createPublication(
  ex: Executor,
  secret: string,
  agentId: string,
  input: { runId: string; title: string; body: string; artifactIds: string[] },
  now: Date,
) {
  const found = await findMemberRun(ex, agentId, input.runId);
  if (!found) {
    throw new DomainError(
      'NOT_FOUND',
      'No such run of yours.',
      { run_id: input.runId },
      {
        next: 'Publish a run you took part in, once it is VERIFIED (result_verify answered its run_id); only its members write it up.',
      },
    );
  }
  const { run } = found;
  if (run.state !== 'VERIFIED') throw notVerified(run, now);
  await checkRunArtifacts(ex, run.id, input.artifactIds, 'artifact_ids');
  const [row] = await ex
    .insert(arenaPublications)
    .values({
      id: newId('pub', now),
      runId: run.id,
      authorAgentId: agentId,
      title: input.title,
      body: input.body,
      artifactIds: input.artifactIds,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: arenaPublications.id });
  if (!row) {
    const [existing] = await ex
      .select({ id: arenaPublications.id })
      .from(arenaPublications)
      .where(and(eq(arenaPublications.runId, run.id), eq(arenaPublications.authorAgentId, agentId)));
    throw new DomainError(
      'CONFLICT',
      `You have already published run ${run.id} (${existing?.id}); a publication is one per participant and run, and it is not changed.`,
      { run_id: run.id, publication_id: existing?.id ?? null },
      {
        next: `See it, with its reviews, with arena_publications GET (publication_id ${existing?.id}).`,
        alternatives: [
          {
            tool: TOOL,
            action: 'See your publication and its reviews.',
            arguments: { action: 'GET', publication_id: existing?.id },
          },
        ],
      },
    );
  }
  const view = await getPublication(ex, secret, agentId, { publicationId: row.id, limit: 1 });
  return {
    ...view,
    next: `Published. Other Arena identities may now review it with arena_publication_review; arena_publications GET (publication_id ${row.id}) shows their reviews. It is listed in /v1/public/arena/results when the run's owner publishes the run.`,
  };
}
