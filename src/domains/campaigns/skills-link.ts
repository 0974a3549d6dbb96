import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import { type Actor, appendEvent } from './core/ledger.ts';
import { campaignMembers, campaigns, taskLeases, tasks } from './tables.ts';
import { currentLeases, liveLeaseOf } from './tasks/leases.ts';

/**
 * What skills (domains/skills) needs of campaigns, through this area's index: who stands where
 * in a campaign, a task with its live lease, and the ledger event a library or attachment change
 * writes in its own transaction.
 */

export interface SkillsCampaign {
  id: string;
  ownerId: string;
  title: string;
  open: boolean;
}

/** The campaign, or null when there is none. */
export async function campaignForSkills(ex: Executor, campaignId: string): Promise<SkillsCampaign | null> {
  const [row] = await ex
    .select({
      id: campaigns.id,
      ownerId: campaigns.ownerId,
      title: campaigns.title,
      status: campaigns.status,
    })
    .from(campaigns)
    .where(eq(campaigns.id, campaignId));
  return row ? { id: row.id, ownerId: row.ownerId, title: row.title, open: row.status !== 'CLOSED' } : null;
}

/** The identity's active role in the campaign, or null when it is not an active member. */
export async function activeRole(
  ex: Executor,
  campaignId: string,
  agentId: string,
): Promise<'COORDINATOR' | 'PARTICIPANT' | null> {
  const [row] = await ex
    .select({ role: campaignMembers.role })
    .from(campaignMembers)
    .where(
      and(
        eq(campaignMembers.campaignId, campaignId),
        eq(campaignMembers.agentId, agentId),
        eq(campaignMembers.status, 'ACTIVE'),
      ),
    );
  return row?.role ?? null;
}

export interface SkillsTask {
  id: string;
  campaignId: string;
  ownerId: string;
  createdBy: string;
  title: string;
  objective: string;
  acceptance: string;
  conditions: Record<string, unknown>;
  status: string;
  /** The open lease whose deadline is still ahead, whoever holds it. */
  lease: { id: string; agentId: string; executionDeadline: Date } | null;
}

/** The task with its campaign's owner and live lease, or null when there is none. */
export async function taskForSkills(ex: Executor, taskId: string, now: Date): Promise<SkillsTask | null> {
  const [row] = await ex
    .select({ task: tasks, ownerId: campaigns.ownerId })
    .from(tasks)
    .innerJoin(campaigns, eq(campaigns.id, tasks.campaignId))
    .where(eq(tasks.id, taskId));
  if (!row) return null;
  const lease = await liveLeaseOf(ex, taskId, now);
  const t = row.task;
  return {
    id: t.id,
    campaignId: t.campaignId,
    ownerId: row.ownerId,
    createdBy: t.createdBy,
    title: t.title,
    objective: t.objective,
    acceptance: t.acceptance,
    conditions: t.conditions,
    status: t.status,
    lease: lease
      ? { id: lease.id, agentId: lease.agentId, executionDeadline: lease.executionDeadline }
      : null,
  };
}

export type CampaignActor = Actor;

/** Appends a skills event to the campaign's ledger, last in the caller's transaction. */
export async function recordCampaignSkillEvent(
  ex: Executor,
  campaignId: string,
  event: { kind: string; actor: Actor; taskId?: string | null; payload: Record<string, unknown> },
  now: Date,
): Promise<void> {
  await appendEvent(ex, campaignId, event, now);
}

/** A lease of this task (in any state), or null when the task has no lease of that id. */
export async function leaseOfTask(
  ex: Executor,
  taskId: string,
  leaseId: string,
): Promise<{ id: string; agentId: string } | null> {
  const [row] = await ex
    .select({ id: taskLeases.id, agentId: taskLeases.agentId })
    .from(taskLeases)
    .where(and(eq(taskLeases.id, leaseId), eq(taskLeases.taskId, taskId)));
  return row ?? null;
}

/**
 * Locks the task row until the transaction ends, so changes to its skills (a cap counted, then an
 * insert) happen one at a time. Task rows are what every campaign writer locks first.
 */
export async function lockTaskForSkills(ex: Executor, taskId: string): Promise<void> {
  await ex.select({ id: tasks.id }).from(tasks).where(eq(tasks.id, taskId)).for('update');
}

/**
 * Where an identity stands now, for the Skills extension's listing: the campaigns it is an
 * active member of (the first `maxCampaigns`, oldest first) and the tasks whose live lease it
 * holds.
 */
export async function skillStandingsOf(
  ex: Executor,
  agentId: string,
  now: Date,
  maxCampaigns: number,
): Promise<{ campaignIds: string[]; taskIds: string[] }> {
  const memberships = await ex
    .select({ campaignId: campaignMembers.campaignId })
    .from(campaignMembers)
    .where(and(eq(campaignMembers.agentId, agentId), eq(campaignMembers.status, 'ACTIVE')))
    .orderBy(asc(campaignMembers.campaignId))
    .limit(maxCampaigns);
  const leases = await currentLeases(ex, agentId, now);
  return { campaignIds: memberships.map((m) => m.campaignId), taskIds: leases.map((l) => l.taskId) };
}
