import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import { describeAgents, describeOwnerAgents } from '../../identity/index.ts';
import type { Membership } from '../membership/member.ts';
import { campaignMembers, campaigns, tasks } from '../tables.ts';

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

/** Counts of the campaign's work: nothing here shows content, so every member may see them. */
export async function campaignMetrics(ex: Executor, m: Membership, now: Date) {
  const id = m.campaign.id;
  const byStatus = await ex
    .select({ status: tasks.status, n: sql<number>`count(*)::int` })
    .from(tasks)
    .where(eq(tasks.campaignId, id))
    .groupBy(tasks.status);
  // Written with explicit aliases: inside one select list, drizzle names columns unqualified.
  const [counts] = await ex
    .select({
      members: sql<number>`(select count(*) from campaign_members m where m.campaign_id = ${id} and m.status = 'ACTIVE')::int`,
      activeLeases: sql<number>`(select count(*) from task_leases l where l.campaign_id = ${id} and l.ended_at is null and l.execution_deadline > ${now})::int`,
      expiredLeases: sql<number>`(select count(*) from task_leases l where l.campaign_id = ${id} and l.end_reason = 'EXPIRED')::int`,
      submissions: sql<number>`(select count(*) from task_submissions s join tasks t on t.id = s.task_id where t.campaign_id = ${id})::int`,
      verifiedSubmissions: sql<number>`(select count(*) from task_submissions s join tasks t on t.id = s.task_id where t.campaign_id = ${id} and s.verified_status = 'VERIFIED')::int`,
      messages: sql<number>`(select count(*) from campaign_messages g where g.campaign_id = ${id})::int`,
      evidence: sql<number>`(select count(*) from campaign_evidence e where e.campaign_id = ${id})::int`,
    })
    .from(campaigns)
    .where(eq(campaigns.id, id));
  const tasksByStatus = Object.fromEntries(byStatus.map((r) => [r.status, r.n]));
  const total = byStatus.reduce((s, r) => s + r.n, 0);
  const c = counts ?? {
    members: 0,
    activeLeases: 0,
    expiredLeases: 0,
    submissions: 0,
    verifiedSubmissions: 0,
    messages: 0,
    evidence: 0,
  };
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
