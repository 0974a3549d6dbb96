import { and, eq, gt, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../../../storage/database.ts';
import { describeAgents, describeOwnerAgents } from '../../identity/index.ts';
import {
  messagesVisible,
  seesOtherWorkers,
  sharedEvidenceVisible,
  submissionsVisible,
  tasksVisible,
  viewerOf,
} from '../audience.ts';
import type { Membership } from '../core/member.ts';
import {
  campaignEvidence,
  campaignMembers,
  campaignMessages,
  campaigns,
  taskLeases,
  taskSubmissions,
  tasks,
} from '../tables.ts';

/** agent_directory and campaign_metrics: who is in a campaign, and how its work stands. */

/**
 * The campaign's members as the caller may see them. Under BLIND_EXPERIMENT a participant sees
 * only coordinators and itself: the other participants are the blind part of the experiment.
 * About-you claims are self-reported and labelled so.
 */
export async function campaignDirectory(ex: Executor, m: Membership) {
  const blind = m.campaign.visibility === 'BLIND_EXPERIMENT' && m.role === 'PARTICIPANT';
  const members = await ex
    .select({
      agentId: campaignMembers.agentId,
      role: campaignMembers.role,
      status: campaignMembers.status,
      joinedAt: campaignMembers.joinedAt,
    })
    .from(campaignMembers)
    .where(
      and(
        eq(campaignMembers.campaignId, m.campaign.id),
        m.role === 'COORDINATOR' ? undefined : eq(campaignMembers.status, 'ACTIVE'),
        blind
          ? sql`(${campaignMembers.role} = 'COORDINATOR' or ${campaignMembers.agentId} = ${m.agentId})`
          : undefined,
      ),
    )
    .orderBy(campaignMembers.createdAt)
    .limit(500);
  const facts = new Map(
    (
      await describeAgents(
        ex,
        members.map((r) => r.agentId),
      )
    ).map((a) => [a.id, a]),
  );
  return {
    campaign_id: m.campaign.id,
    members: members.map((r) => {
      const a = facts.get(r.agentId);
      return {
        agent_id: r.agentId,
        display_name: a?.displayName ?? null,
        runtime: a?.runtime ?? null,
        role: r.role,
        membership: r.status,
        joined_at: r.joinedAt?.toISOString() ?? null,
        about_you: a ? { ...(a.about as Record<string, unknown>), label: 'claimed-not-verified' } : null,
      };
    }),
    hidden_participants: blind,
  };
}

/** The caller's owner's other active agents: whom a coordinator can invite directly. */
export async function ownAgentsDirectory(ex: Executor, ownerId: string, self: string) {
  const agents = (await describeOwnerAgents(ex, ownerId)).filter((a) => a.id !== self);
  return agents.map((a) => ({
    agent_id: a.id,
    display_name: a.displayName,
    runtime: a.runtime,
    mode: a.mode,
  }));
}

/**
 * Counts of the campaign's work, each of what the caller may see (issue 40): under
 * BLIND_EXPERIMENT a participant's counts hold its own work and the coordinators', never how
 * much other participants did or how many there are; TASK_SCOPED counts the tasks it may see.
 */
export async function campaignMetrics(ex: Executor, m: Membership, now: Date) {
  const id = m.campaign.id;
  const v = viewerOf(m);
  const visibleTasks = ex.select({ id: tasks.id }).from(tasks).where(tasksVisible(v));
  const byStatus = await ex
    .select({ status: tasks.status, n: sql<number>`count(*)::int` })
    .from(tasks)
    .where(tasksVisible(v))
    .groupBy(tasks.status);
  const members = seesOtherWorkers(v)
    ? and(eq(campaignMembers.campaignId, id), eq(campaignMembers.status, 'ACTIVE'))
    : and(
        eq(campaignMembers.campaignId, id),
        eq(campaignMembers.status, 'ACTIVE'),
        or(eq(campaignMembers.role, 'COORDINATOR'), eq(campaignMembers.agentId, m.agentId)),
      );
  const leasesOf = and(eq(taskLeases.campaignId, id), inArray(taskLeases.taskId, visibleTasks));
  const submissionsOf = and(inArray(taskSubmissions.taskId, visibleTasks), submissionsVisible(v));
  // Every count in one statement: each a scalar subquery filtered as the caller may see.
  const count = (from: AnyPgTable, where: SQL | undefined) =>
    sql<number>`(${ex.select({ n: sql`count(*)::int` }).from(from).where(where)})`.mapWith(Number);
  const [c] = await ex
    .select({
      members: count(campaignMembers, members),
      activeLeases: count(
        taskLeases,
        and(leasesOf, isNull(taskLeases.endedAt), gt(taskLeases.executionDeadline, now)),
      ),
      expiredLeases: count(taskLeases, and(leasesOf, eq(taskLeases.endReason, 'EXPIRED'))),
      submissions: count(taskSubmissions, submissionsOf),
      verifiedSubmissions: count(
        taskSubmissions,
        and(submissionsOf, eq(taskSubmissions.verifiedStatus, 'VERIFIED')),
      ),
      messages: count(campaignMessages, messagesVisible(v)),
      evidence: count(campaignEvidence, sharedEvidenceVisible(v)),
    })
    .from(campaigns)
    .where(eq(campaigns.id, id));
  if (!c) throw new Error(`campaign ${id} vanished while its metrics were counted`);
  const tasksByStatus = Object.fromEntries(byStatus.map((r) => [r.status, r.n]));
  const total = byStatus.reduce((s, r) => s + r.n, 0);
  return {
    campaign_id: id,
    generated_at: now.toISOString(),
    members_active: c.members,
    tasks: { total, by_status: tasksByStatus },
    leases: { active: c.activeLeases, expired: c.expiredLeases },
    submissions: {
      total: c.submissions,
      verified: c.verifiedSubmissions,
      not_verified: c.submissions - c.verifiedSubmissions,
    },
    messages: c.messages,
    shared_evidence: c.evidence,
    ledger_events: m.campaign.lastSeq,
    note: 'VERIFIED counts submissions whose configured checks passed; it is not a judgement of their conclusions.',
  };
}
