/**
 * Assignments: an owner (console, `POST /v1/arena/assignments`) gives one challenge version to
 * one activated identity, or to a team of them for a TEAM challenge. Each member gets its own
 * assignment (asg_…) in one run (arun_…); an identity has at most one current assignment
 * (a partial unique index decides races), and an assignment not started within the hour expires.
 * Creating one sends notifications/tools/list_changed to every member's open sessions.
 */
import { and, eq, inArray, ne } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { lockedOne } from '../../../storage/locked.ts';
import { enqueueToolsChanged, findAgent } from '../../identity/index.ts';
import { worldSha256 } from '../challenges/index.ts';
import type { ChallengeRegistry } from '../challenges/registry.ts';
import { arenaRunMembers, arenaRuns } from '../tables.ts';
import { endRun, expireOverdue } from './ending.ts';
import { RUN_LIMITS } from './limits.ts';

export interface AssignInput {
  agentId: string;
  challengeId: string;
  version?: number | undefined;
  /** TEAM only: the other members, roles B, C, D in this order (the first identity is A). */
  teammates?: string[] | undefined;
  publish?: boolean | undefined;
  showAgent?: boolean | undefined;
  /** The owner (console, API), or the operator's schedule. */
  assignedBy?: 'OWNER' | 'SCHEDULE';
}

const ROLES = ['A', 'B', 'C', 'D'] as const;

function notFound(what: string, details: Record<string, unknown>, next: string): DomainError {
  return new DomainError('NOT_FOUND', `No such ${what}.`, details, { next });
}

async function assignable(ex: Executor, ownerId: string, agentId: string) {
  const agent = await findAgent(ex, agentId);
  if (!agent || agent.ownerId !== ownerId) {
    throw notFound('identity', { agent_id: agentId }, 'Assign one of your own identities (GET /v1/agents).');
  }
  if (agent.status !== 'ACTIVE') {
    throw new DomainError('CONFLICT', `Identity ${agentId} is not active.`, {
      agent_id: agentId,
      status: agent.status,
    });
  }
  if (!agent.arenaEnabled) {
    throw new DomainError(
      'ARENA_NOT_ENABLED',
      `Identity ${agentId} does not take part in the Arena.`,
      { agent_id: agentId },
      { next: `Turn the Arena on for it first: POST /v1/agents/${agentId}/arena {"enabled": true}.` },
    );
  }
  return agent;
}

export async function assignChallenge(
  ex: Executor,
  registry: ChallengeRegistry,
  ownerId: string,
  input: AssignInput,
  now: Date,
) {
  const registered = await registry.get(ex, input.challengeId, input.version);
  if (!registered) {
    throw notFound(
      'challenge version',
      { challenge_id: input.challengeId, version: input.version ?? null },
      'GET /v1/arena/challenges lists what can be assigned.',
    );
  }
  const c = registered.loaded.challenge;
  const memberIds = [input.agentId, ...(input.teammates ?? [])];
  const teamSize = c.mode === 'TEAM' ? (c.team_size ?? 2) : 1;
  if (memberIds.length !== teamSize || new Set(memberIds).size !== memberIds.length) {
    throw new DomainError(
      'VALIDATION_FAILED',
      c.mode === 'TEAM'
        ? `${c.id} is a TEAM challenge for ${teamSize} identities: name ${teamSize - 1} distinct teammates besides the first identity.`
        : `${c.id} is a SOLO challenge: name no teammates.`,
      { mode: c.mode, team_size: teamSize, given: memberIds.length },
    );
  }
  for (const id of memberIds) await assignable(ex, ownerId, id);
  for (const id of memberIds) await expireOverdue(ex, now, id);
  const [busy] = await currentMembers(ex, memberIds);
  if (busy) throw assignmentCurrent(busy);
  const runId = newId('arun', now);
  const expiresAt = new Date(now.getTime() + RUN_LIMITS.assignmentMs);
  await ex.insert(arenaRuns).values({
    id: runId,
    challengeId: c.id,
    challengeVersion: c.version,
    packageSha256: registered.loaded.sha256,
    worldSha256: worldSha256(registered.loaded.worldFiles),
    mode: c.mode,
    state: 'ASSIGNED',
    ownerId,
    assignedBy: input.assignedBy ?? 'OWNER',
    publish: input.publish ?? true,
    showAgent: input.showAgent ?? false,
    createdAt: now,
    assignmentExpiresAt: expiresAt,
  });
  const members = memberIds.map((agentId, i) => ({
    runId,
    agentId,
    assignmentId: newId('asg', now),
    role: ROLES[i] ?? 'A',
    current: true,
  }));
  // A racing assignment for the same identity loses on the partial unique index.
  const inserted = await ex.insert(arenaRunMembers).values(members).onConflictDoNothing().returning();
  if (inserted.length !== members.length) {
    // The insert waited for the winner to commit; this new statement sees its assignment.
    const [winner] = await currentMembers(ex, memberIds, runId);
    if (winner) throw assignmentCurrent(winner);
    throw new DomainError(
      'ARENA_ASSIGNMENT_CURRENT',
      'Another assignment was made for one of these identities at the same moment.',
      {
        agent_ids: memberIds,
      },
    );
  }
  for (const id of memberIds) await enqueueToolsChanged(ex, id, now);
  return {
    run_id: runId,
    challenge_id: c.id,
    version: c.version,
    mode: c.mode,
    state: 'ASSIGNED' as const,
    expires_at: expiresAt.toISOString(),
    publish: input.publish ?? true,
    show_agent: input.showAgent ?? false,
    assignments: members.map((m) => ({ assignment_id: m.assignmentId, agent_id: m.agentId, role: m.role })),
    next: 'Each identity was told (notifications/tools/list_changed); its capabilities_describe shows arena_assignment with the exact arena_start arguments. Unstarted, the assignment expires at expires_at.',
  };
}

/** The current assignments of these identities (other than run `exceptRunId`'s). */
function currentMembers(ex: Executor, agentIds: string[], exceptRunId?: string) {
  return ex
    .select({
      agentId: arenaRunMembers.agentId,
      assignmentId: arenaRunMembers.assignmentId,
      runId: arenaRunMembers.runId,
    })
    .from(arenaRunMembers)
    .where(
      and(
        inArray(arenaRunMembers.agentId, agentIds),
        eq(arenaRunMembers.current, true),
        exceptRunId === undefined ? undefined : ne(arenaRunMembers.runId, exceptRunId),
      ),
    );
}

function assignmentCurrent(busy: { agentId: string; assignmentId: string; runId: string }): DomainError {
  return new DomainError(
    'ARENA_ASSIGNMENT_CURRENT',
    `Identity ${busy.agentId} already has a current Arena assignment.`,
    { agent_id: busy.agentId, assignment_id: busy.assignmentId, run_id: busy.runId },
    {
      next: `Wait for run ${busy.runId} to end, or cancel it with DELETE /v1/arena/assignments/${busy.assignmentId}.`,
    },
  );
}

/** The owner cancels an assignment (and so its run, for every member), unless it has ended. */
export async function cancelAssignment(ex: Executor, ownerId: string, assignmentId: string, now: Date) {
  const row = await lockedOne(
    ex
      .select({ run: arenaRuns })
      .from(arenaRunMembers)
      .innerJoin(arenaRuns, eq(arenaRuns.id, arenaRunMembers.runId))
      .where(and(eq(arenaRunMembers.assignmentId, assignmentId), eq(arenaRuns.ownerId, ownerId))),
    () =>
      notFound(
        'assignment',
        { assignment_id: assignmentId },
        'GET /v1/arena/runs lists your runs with their assignments.',
      ),
    { of: arenaRuns },
  );
  if (['VERIFIED', 'EXPIRED', 'CANCELLED'].includes(row.run.state)) {
    throw new DomainError('ARENA_RUN_ENDED', `Run ${row.run.id} has already ended (${row.run.state}).`, {
      run_id: row.run.id,
      state: row.run.state,
    });
  }
  const members = await ex.select().from(arenaRunMembers).where(eq(arenaRunMembers.runId, row.run.id));
  await endRun(ex, row.run.id, 'CANCELLED', now);
  for (const m of members) await enqueueToolsChanged(ex, m.agentId, now);
  return {
    run_id: row.run.id,
    state: 'CANCELLED' as const,
    next: 'The run is cancelled and its world destroyed; assign again with POST /v1/arena/assignments.',
  };
}
