/**
 * Reaching a run as one of its members. Every run tool goes through `openRun`: the run must be
 * the caller's, started by it, not ended, before its deadline, and the challenge must allow the
 * tool. A run that is not the caller's is reported exactly like a missing one, so one identity
 * cannot learn of another's runs (or read their workspaces).
 */
import { and, eq, sql } from 'drizzle-orm';
import { type Alternative, DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { LoadedChallenge } from '../challenges/index.ts';
import type { ChallengeRegistry } from '../challenges/registry.ts';
import { arenaRunMembers, arenaRuns } from '../tables.ts';
import type { RunTool } from './policy.ts';

export type RunRow = typeof arenaRuns.$inferSelect;
export type MemberRow = typeof arenaRunMembers.$inferSelect;

export interface OpenRun {
  run: RunRow;
  member: MemberRow;
  challenge: LoadedChallenge;
}

/** A run state that takes no more work. */
export const ENDED_STATES = ['VERIFIED', 'EXPIRED', 'CANCELLED'] as const;
const isEnded = (state: RunRow['state']) => (ENDED_STATES as readonly string[]).includes(state);

export function runNotFound(runId: string): DomainError {
  return new DomainError(
    'NOT_FOUND',
    'No such run of yours.',
    { run_id: runId },
    {
      next: 'Call capabilities_describe: arena_assignment names your current assignment and, once started, its run_id.',
      alternatives: [{ tool: 'capabilities_describe', action: 'See your current Arena assignment.' }],
    },
  );
}

export function runEnded(run: Pick<RunRow, 'id' | 'state'>, state: string = run.state): DomainError {
  return new DomainError(
    'ARENA_RUN_ENDED',
    `Run ${run.id} has ended (${state}); it takes no more work.`,
    { run_id: run.id, state },
    { alternatives: [{ tool: 'capabilities_describe', action: 'See whether a new assignment waits.' }] },
  );
}

/** The run and the caller's membership, optionally locking the run row for the transaction. */
export async function findMemberRun(ex: Executor, agentId: string, runId: string, lock = false) {
  const query = ex
    .select({ run: arenaRuns, member: arenaRunMembers })
    .from(arenaRuns)
    .innerJoin(arenaRunMembers, eq(arenaRunMembers.runId, arenaRuns.id))
    .where(and(eq(arenaRuns.id, runId), eq(arenaRunMembers.agentId, agentId)));
  const [row] = await (lock ? query.for('update', { of: arenaRuns }) : query);
  return row;
}

/** Whether the run is past its deadline at `now` (a RUNNING or SUBMITTED run the sweep has not ended yet). */
export function pastDeadline(run: RunRow, now: Date): boolean {
  return run.deadline !== null && now.getTime() >= run.deadline.getTime();
}

/**
 * The caller's run, ready for `tool`.
 * @throws NOT_FOUND (not the caller's), CONFLICT (not started by the caller: arena_start first),
 *   ARENA_RUN_ENDED (ended, or past its deadline), ARENA_TOOL_NOT_ALLOWED.
 */
export async function openRun(
  ex: Executor,
  registry: ChallengeRegistry,
  agentId: string,
  runId: string,
  now: Date,
  tool: RunTool | 'workspace.thread',
  lock = false,
): Promise<OpenRun> {
  const found = await findMemberRun(ex, agentId, runId, lock);
  if (!found) throw runNotFound(runId);
  const { run, member } = found;
  if (isEnded(run.state)) throw runEnded(run);
  if (pastDeadline(run, now)) throw runEnded(run, 'EXPIRED');
  if (!member.startedAt) {
    throw new DomainError(
      'CONFLICT',
      `You have not started run ${run.id} yet.`,
      { run_id: run.id, assignment_id: member.assignmentId },
      {
        next: 'Start it with arena_start and the arguments capabilities_describe shows in arena_assignment.',
        alternatives: [{ tool: 'capabilities_describe', action: 'Read the arena_start arguments.' }],
      },
    );
  }
  const registered = await registry.get(ex, run.challengeId, run.challengeVersion);
  if (!registered) throw new Error(`challenge ${run.challengeId} v${run.challengeVersion} is gone`);
  const challenge = registered.loaded;
  const allowed = challenge.challenge.allowed_tools as readonly string[];
  // The thread is how a TEAM reads its own messages: it goes with message_append.
  const needed = tool === 'workspace.thread' ? 'message_append' : tool;
  if (!allowed.includes(needed)) {
    throw new DomainError(
      'ARENA_TOOL_NOT_ALLOWED',
      `This challenge does not allow ${tool}.`,
      { tool, allowed_tools: allowed },
      { alternatives: allowed.map((name) => ({ tool: name, action: 'Allowed in this run.' })) },
    );
  }
  return { run, member, challenge };
}

/**
 * The alternatives a refusal inside a run may offer: only tools the run's challenge allows (an
 * agent is never sent to a second refusal), and capabilities_describe, which always answers,
 * when none of them is.
 */
export function allowedAlternatives(
  allowedTools: readonly string[],
  alternatives: Alternative[],
): Alternative[] {
  const kept = alternatives.filter((a) => !a.tool || allowedTools.includes(a.tool));
  if (kept.length > 0) return kept;
  return [{ tool: 'capabilities_describe', action: 'See your run and the tools its challenge allows.' }];
}

/** Marks the workspace changed (sandbox.exec writes back only over the revision it read). */
export async function bumpWorkspace(ex: Executor, runId: string, deltaBytes: number): Promise<void> {
  await ex
    .update(arenaRuns)
    .set({
      workspaceRevision: sql`${arenaRuns.workspaceRevision} + 1`,
      workspaceBytes: sql`${arenaRuns.workspaceBytes} + ${deltaBytes}`,
    })
    .where(eq(arenaRuns.id, runId));
}
