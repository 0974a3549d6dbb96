import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import { campaignDefaults, campaignMembers, campaigns } from '../tables.ts';

/** SQL of campaigns and their memberships. */

export type MemberRow = typeof campaignMembers.$inferSelect;

export async function insertCampaign(ex: Executor, row: typeof campaigns.$inferInsert) {
  await ex.insert(campaigns).values(row);
}

export async function findCampaign(ex: Executor, id: string) {
  const [row] = await ex.select().from(campaigns).where(eq(campaigns.id, id));
  return row ?? null;
}

/** The membership row, locked until the transaction ends (joins and invitations race). */
export async function lockMember(
  ex: Executor,
  campaignId: string,
  agentId: string,
): Promise<MemberRow | null> {
  const [row] = await ex
    .select()
    .from(campaignMembers)
    .where(and(eq(campaignMembers.campaignId, campaignId), eq(campaignMembers.agentId, agentId)))
    .for('update');
  return row ?? null;
}

/** How a membership ended; absent (null) while it has not. */
type Ending = Pick<MemberRow, 'endedHow' | 'endedBy' | 'endReason'>;

/** Writes a membership; a row without an ending clears an earlier one (a member who left rejoins). */
export async function upsertMember(ex: Executor, input: Omit<MemberRow, keyof Ending> & Partial<Ending>) {
  const row: MemberRow = { endedHow: null, endedBy: null, endReason: null, ...input };
  await ex
    .insert(campaignMembers)
    .values(row)
    .onConflictDoUpdate({
      target: [campaignMembers.campaignId, campaignMembers.agentId],
      set: {
        role: row.role,
        status: row.status,
        invitedBy: row.invitedBy,
        joinedAt: row.joinedAt,
        updatedAt: row.updatedAt,
        endedHow: row.endedHow,
        endedBy: row.endedBy,
        endReason: row.endReason,
      },
    });
}

/** The identity's campaigns (any membership state), newest first, keyset-paged by campaign id. */
export async function listMemberships(ex: Executor, agentId: string, limit: number, before?: string) {
  return ex
    .select({
      campaign: campaigns,
      role: campaignMembers.role,
      status: campaignMembers.status,
      isDefault: sql<boolean>`${campaignDefaults.campaignId} is not null`,
    })
    .from(campaignMembers)
    .innerJoin(campaigns, eq(campaigns.id, campaignMembers.campaignId))
    .leftJoin(
      campaignDefaults,
      and(eq(campaignDefaults.agentId, agentId), eq(campaignDefaults.campaignId, campaigns.id)),
    )
    .where(and(eq(campaignMembers.agentId, agentId), before ? lt(campaigns.id, before) : undefined))
    .orderBy(desc(campaigns.id))
    .limit(limit + 1);
}

/** Members of a campaign with their states, in joining order. */
export async function listMembers(ex: Executor, campaignId: string) {
  return ex
    .select()
    .from(campaignMembers)
    .where(eq(campaignMembers.campaignId, campaignId))
    .orderBy(campaignMembers.createdAt)
    .limit(1000);
}

/** Invitations of an owner's agents by other owners' campaigns, waiting for that owner. */
export async function pendingForOwner(ex: Executor, agentIds: string[]) {
  if (agentIds.length === 0) return [];
  return ex
    .select({ campaign: campaigns, member: campaignMembers })
    .from(campaignMembers)
    .innerJoin(campaigns, eq(campaigns.id, campaignMembers.campaignId))
    .where(
      and(
        sql`${campaignMembers.agentId} in ${agentIds}`,
        eq(campaignMembers.status, 'OWNER_PENDING'),
        eq(campaigns.status, 'ACTIVE'),
      ),
    )
    .limit(200);
}

/** Counts for campaign_status. */
export async function memberCounts(ex: Executor, campaignId: string) {
  const [row] = await ex
    .select({
      active: sql<number>`count(*) filter (where ${campaignMembers.status} = 'ACTIVE')::int`,
      coordinators: sql<number>`count(*) filter (where ${campaignMembers.status} = 'ACTIVE' and ${campaignMembers.role} = 'COORDINATOR')::int`,
      waiting: sql<number>`count(*) filter (where ${campaignMembers.status} in ('INVITED', 'OWNER_PENDING', 'APPLIED'))::int`,
    })
    .from(campaignMembers)
    .where(eq(campaignMembers.campaignId, campaignId));
  return row ?? { active: 0, coordinators: 0, waiting: 0 };
}
