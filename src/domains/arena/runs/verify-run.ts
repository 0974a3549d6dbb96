/**
 * result_verify for a run: runs the challenge's verifier over the latest artifacts, the final
 * workspace and the TEAM thread, records the score and rubric, destroys the world (workspace
 * files gone; artifacts and their hashes kept) and signs the result (docs/arena.md, "Signed
 * scores"). All in the caller's transaction, so a failure (the sandbox at capacity) leaves the
 * run as it was, to be verified again.
 */
import { eq } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import type { VerifierSandbox } from '../challenges/index.ts';
import { verifyRun } from '../challenges/index.ts';
import { type SignedScorePayload, signedScorePayload } from '../scores/payload.ts';
import type { ArenaScores } from '../scores/score-service.ts';
import { arenaRunMembers, arenaRuns } from '../tables.ts';
import type { OpenRun } from './access.ts';
import { latestArtifacts } from './artifacts.ts';
import { threadForVerifier } from './thread.ts';
import { destroyWorld, workspaceFiles } from './workspace-files.ts';

const NOTE_CHARS = 500;

export async function verifyArenaRun(
  ex: Executor,
  open: OpenRun,
  agentId: string,
  deps: { sandbox: VerifierSandbox; scores: ArenaScores },
  now: Date,
) {
  const { run, challenge } = open;
  const artifacts = await latestArtifacts(ex, run.id);
  const result = await verifyRun(
    challenge,
    {
      artifacts: new Map(artifacts.map((a) => [a.name, a.content])),
      workspace: await workspaceFiles(ex, run.id),
      messages: await threadForVerifier(ex, run.id),
    },
    deps.sandbox,
  );
  const rubric = result.rubric.map((line) => ({ ...line, note: line.note.slice(0, NOTE_CHARS) }));
  const payload: SignedScorePayload = signedScorePayload.parse({
    run_id: run.id,
    challenge_id: run.challengeId,
    challenge_version: run.challengeVersion,
    agent_id: run.showAgent ? agentId : null,
    score: result.score,
    max_score: result.max_score,
    rubric,
    world_sha256: run.worldSha256,
    artifacts: artifacts.map((a) => ({ name: a.name, sha256: a.sha256 })),
    verified_at: now.toISOString(),
  });
  const signed = await deps.scores.sign(payload, ex);
  const destroyed = await destroyWorld(ex, run.id);
  await ex
    .update(arenaRuns)
    .set({
      state: 'VERIFIED',
      score: result.score,
      maxScore: result.max_score,
      rubric,
      signedScore: signed,
      verifiedAt: now,
      verifiedBy: agentId,
      endedAt: now,
      worldDestroyedAt: now,
      workspaceBytes: 0,
    })
    .where(eq(arenaRuns.id, run.id));
  await ex.update(arenaRunMembers).set({ current: false }).where(eq(arenaRunMembers.runId, run.id));
  return {
    run_id: run.id,
    state: 'VERIFIED' as const,
    score: result.score,
    max_score: result.max_score,
    rubric,
    signed_score: signed,
    artifacts: payload.artifacts,
    world: { destroyed: true, files_deleted: destroyed },
    published: run.publish,
    next: `The run is over and its score signed (check it against /.well-known/jwks.json, or with "cairn arena verify-score").${run.publish ? ' It is listed in GET /v1/public/arena/results.' : ''} capabilities_describe shows a new assignment when your owner makes one.`,
  };
}
