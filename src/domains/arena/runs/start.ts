/**
 * arena_start and the assignment as the agent sees it (capabilities_describe's
 * `arena_assignment`). The first member to start a run starts its clock (deadline = start +
 * the challenge's time limit) and seeds its workspace with the challenge's world; a TEAM
 * member starting later joins the same run.
 */
import { and, asc, eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { lockedOne } from '../../../storage/locked.ts';
import type { LoadedChallenge } from '../challenges/index.ts';
import type { ChallengeRegistry } from '../challenges/registry.ts';
import { arenaRunMembers, arenaRuns } from '../tables.ts';
import { allowedAlternatives, pastDeadline, type RunRow, runEnded } from './access.ts';
import { seedWorkspace, workspaceFiles } from './workspace-files.ts';

/** The current assignment of an identity, if it has one that has not run out. */
export async function currentAssignment(ex: Executor, agentId: string, now: Date) {
  const [row] = await ex
    .select({ run: arenaRuns, member: arenaRunMembers })
    .from(arenaRunMembers)
    .innerJoin(arenaRuns, eq(arenaRuns.id, arenaRunMembers.runId))
    .where(and(eq(arenaRunMembers.agentId, agentId), eq(arenaRunMembers.current, true)));
  if (!row) return null;
  const { run, member } = row;
  if (run.state === 'ASSIGNED' && now >= run.assignmentExpiresAt) return null;
  if (pastDeadline(run, now)) return null;
  const args = {
    assignment_id: member.assignmentId,
    challenge_id: run.challengeId,
    version: run.challengeVersion,
  };
  return {
    ...args,
    role: member.role,
    mode: run.mode,
    state: member.startedAt ? run.state : 'ASSIGNED',
    // Once the run is going (a teammate started it), the deadline is what bounds a late start too.
    expires_at: (run.deadline ?? run.assignmentExpiresAt).toISOString(),
    ...(member.startedAt
      ? {
          run_id: run.id,
          deadline: run.deadline?.toISOString() ?? null,
          next: 'Your run is going: work in it with the workspace.*, sandbox.exec and lab.* tools, hand in with artifact_submit and end it with result_verify.',
        }
      : {
          arena_start: { arguments: args },
          next: 'Call arena_start with these arguments and a fresh idempotency_key before expires_at.',
        }),
  };
}

/** What a member sees of the challenge when it starts. */
export function presentChallenge(challenge: LoadedChallenge) {
  const c = challenge.challenge;
  return {
    challenge_id: c.id,
    version: c.version,
    title: c.title,
    statement: c.statement,
    mode: c.mode,
    time_limit_minutes: c.time_limit_minutes,
    allowed_tools: c.allowed_tools,
    rubric: c.verifier.rubric.map((line) => ({
      id: line.id,
      points: line.points,
      description: line.description,
    })),
    simulated_sources: [...challenge.sources.entries()].map(([id, s]) => ({
      source_id: id,
      title: s.title,
      url: s.url,
      kind: s.kind,
      label: 'SIMULATED',
    })),
  };
}

export async function startRun(
  ex: Executor,
  registry: ChallengeRegistry,
  agentId: string,
  input: { assignmentId: string; challengeId: string; version: number },
  now: Date,
) {
  const found = await lockedOne(
    ex
      .select({ run: arenaRuns, member: arenaRunMembers })
      .from(arenaRunMembers)
      .innerJoin(arenaRuns, eq(arenaRuns.id, arenaRunMembers.runId))
      .where(and(eq(arenaRunMembers.assignmentId, input.assignmentId), eq(arenaRunMembers.agentId, agentId))),
    () =>
      new DomainError(
        'NOT_FOUND',
        'No such assignment of yours.',
        { assignment_id: input.assignmentId },
        {
          next: 'Call capabilities_describe: arena_assignment shows the exact arena_start arguments.',
          alternatives: [{ tool: 'capabilities_describe', action: 'Read your current assignment.' }],
        },
      ),
    { of: arenaRuns },
  );
  const { run } = found;
  // The member as committed now: a racing start of this member held the run's lock, and the
  // locking read above re-reads only the run row after such a wait (READ COMMITTED), not this one.
  const [member = found.member] = await ex
    .select()
    .from(arenaRunMembers)
    .where(and(eq(arenaRunMembers.runId, run.id), eq(arenaRunMembers.agentId, agentId)));
  if (run.challengeId !== input.challengeId || run.challengeVersion !== input.version) {
    throw new DomainError(
      'VALIDATION_FAILED',
      `Assignment ${member.assignmentId} is for ${run.challengeId} version ${run.challengeVersion}.`,
      { assignment_id: member.assignmentId, challenge_id: run.challengeId, version: run.challengeVersion },
      { next: 'Call arena_start with the arguments capabilities_describe shows in arena_assignment.' },
    );
  }
  if (
    run.state === 'CANCELLED' ||
    (run.state === 'ASSIGNED' && now >= run.assignmentExpiresAt) ||
    (run.state === 'EXPIRED' && !member.startedAt)
  ) {
    throw new DomainError(
      'ARENA_ASSIGNMENT_EXPIRED',
      run.state === 'CANCELLED'
        ? 'The assignment was cancelled by your owner.'
        : 'The assignment was not started within its hour.',
      { assignment_id: member.assignmentId, state: run.state === 'CANCELLED' ? 'CANCELLED' : 'EXPIRED' },
    );
  }
  if (run.state === 'VERIFIED' || run.state === 'EXPIRED' || pastDeadline(run, now)) {
    throw runEnded(run, pastDeadline(run, now) ? 'EXPIRED' : run.state);
  }
  const registered = await registry.get(ex, run.challengeId, run.challengeVersion);
  if (!registered) throw new Error(`challenge ${run.challengeId} v${run.challengeVersion} is gone`);
  const challenge = registered.loaded;
  if (member.startedAt) {
    throw new DomainError(
      'ARENA_RUN_ACTIVE',
      `You already run ${run.id}; one Arena run at a time.`,
      { run_id: run.id, state: run.state, deadline: run.deadline?.toISOString() ?? null },
      {
        alternatives: allowedAlternatives(challenge.challenge.allowed_tools, [
          { tool: 'workspace.list', action: 'Continue the current run.', arguments: { run_id: run.id } },
        ]),
      },
    );
  }
  let started: RunRow = run;
  if (run.state === 'ASSIGNED') {
    const deadline = new Date(now.getTime() + challenge.challenge.time_limit_minutes * 60_000);
    [started] = (await ex
      .update(arenaRuns)
      .set({ state: 'RUNNING', startedAt: now, deadline })
      .where(eq(arenaRuns.id, run.id))
      .returning()) as [RunRow];
    await seedWorkspace(ex, started, challenge, now);
  }
  await ex
    .update(arenaRunMembers)
    .set({ startedAt: now })
    .where(and(eq(arenaRunMembers.runId, run.id), eq(arenaRunMembers.agentId, agentId)));
  const team = await ex
    .select({ agent_id: arenaRunMembers.agentId, role: arenaRunMembers.role })
    .from(arenaRunMembers)
    .where(eq(arenaRunMembers.runId, run.id))
    .orderBy(asc(arenaRunMembers.role));
  const files = await workspaceFiles(ex, run.id);
  const allowed = challenge.challenge.allowed_tools as readonly string[];
  return {
    run_id: run.id,
    state: started.state,
    deadline: started.deadline?.toISOString() ?? null,
    role: member.role,
    ...(run.mode === 'TEAM' ? { team } : {}),
    challenge: presentChallenge(challenge),
    workspace: { files: files.map((f) => f.path) },
    next_steps: [
      'Read the statement; everything in this run is synthetic and every lab answer is SIMULATED.',
      allowed.includes('workspace.read')
        ? 'workspace.list and workspace.read show the files you start with.'
        : null,
      allowed.includes('lab.search') ? 'lab.search and lab.fetch read the simulated sources.' : null,
      allowed.includes('sandbox.exec') ? 'sandbox.exec runs a JavaScript program of the workspace.' : null,
      run.mode === 'TEAM'
        ? 'message_append with run_id writes to your team; workspace.thread reads what they wrote.'
        : null,
      allowed.includes('artifact_submit')
        ? 'Hand in with artifact_submit, then end the run with result_verify.'
        : 'End the run with result_verify.',
    ].filter((s): s is string => s !== null),
  };
}
