import { and, eq, type SQL, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { activateForCampaigns, enqueueToolsChanged, findAgent } from '../../identity/index.ts';
import { appendEvent } from '../core/ledger.ts';
import { ownerActorId } from '../core/task-repo.ts';
import { requireTakingNew } from '../errors.ts';
import { campaignMembers, campaigns } from '../tables.ts';
import * as repo from './members-repo.ts';

/**
 * What matching (domains/matching) needs of campaigns, through this area's index: which campaign
 * an owner may open to applications, who coordinates one, and the join that ends an approved
 * matching request.
 */

export interface MatchingCampaign {
  id: string;
  title: string;
  ownerId: string;
  /** ACTIVE: it takes new members. A STOPPING one does not, nor does a CLOSED one. */
  open: boolean;
  stopping: boolean;
}

const shape = (c: typeof campaigns.$inferSelect): MatchingCampaign => ({
  id: c.id,
  title: c.title,
  ownerId: c.ownerId,
  open: c.status === 'ACTIVE',
  stopping: c.status === 'STOPPING',
});

export async function campaignForMatching(
  ex: Executor,
  campaignId: string,
): Promise<MatchingCampaign | null> {
  const row = await repo.findCampaign(ex, campaignId);
  return row ? shape(row) : null;
}

/** The owner's own open campaign; NOT_FOUND for another owner's (reported like a missing one). */
export async function ownedOpenCampaign(ex: Executor, ownerId: string, campaignId: string) {
  const row = await repo.findCampaign(ex, campaignId);
  if (!row || row.ownerId !== ownerId) {
    throw new DomainError('NOT_FOUND', `No campaign ${campaignId} of yours.`, { campaign_id: campaignId });
  }
  requireTakingNew(row, 'OWNER');
  return shape(row);
}

/** The campaigns the identity actively coordinates (they answer matching requests to the campaign). */
export async function coordinatedCampaignIds(ex: Executor, agentId: string): Promise<string[]> {
  const rows = await ex
    .select({ id: campaignMembers.campaignId })
    .from(campaignMembers)
    .where(
      and(
        eq(campaignMembers.agentId, agentId),
        eq(campaignMembers.role, 'COORDINATOR'),
        eq(campaignMembers.status, 'ACTIVE'),
      ),
    );
  return rows.map((r) => r.id);
}

/** Whether the identity is an active member (any role) of the campaign. */
export async function isActiveMember(ex: Executor, campaignId: string, agentId: string): Promise<boolean> {
  const [row] = await ex
    .select({ status: campaignMembers.status })
    .from(campaignMembers)
    .where(and(eq(campaignMembers.campaignId, campaignId), eq(campaignMembers.agentId, agentId)));
  return row?.status === 'ACTIVE';
}

/**
 * The last step of an approved matching request: the agent joins as a participant (an active
 * member stays as it is), under the campaign's visibility mode like any participant, with a
 * MEMBER_JOINED event naming the request; its sessions hear that their tool list changed.
 */
export async function admitMatched(
  ex: Executor,
  input: { campaignId: string; agentId: string; requestId: string; decidedBy: string },
  now: Date,
): Promise<{ membership: 'ACTIVE'; role: 'COORDINATOR' | 'PARTICIPANT'; changed: boolean }> {
  const campaign = await repo.findCampaign(ex, input.campaignId);
  if (!campaign) throw new Error(`campaign ${input.campaignId} vanished during a matching join`);
  requireTakingNew(campaign, 'OWNER');
  // The owner may have suspended or revoked the agent since it asked: no one joins in that state.
  const agent = await findAgent(ex, input.agentId);
  if (agent?.status !== 'ACTIVE') {
    throw new DomainError(
      'CONFLICT',
      'The joining agent is suspended or revoked; it cannot join until its owner restores it.',
      { agent_id: input.agentId },
    );
  }
  const existing = await repo.lockMember(ex, input.campaignId, input.agentId);
  if (existing?.status === 'ACTIVE') return { membership: 'ACTIVE', role: existing.role, changed: false };
  // The owners' approval activates a guest identity (inert when paired) for this campaign's work.
  await activateForCampaigns(ex, agent, now);
  await repo.upsertMember(ex, {
    campaignId: input.campaignId,
    agentId: input.agentId,
    role: 'PARTICIPANT',
    status: 'ACTIVE',
    invitedBy: ownerActorId(input.decidedBy),
    createdAt: existing?.createdAt ?? now,
    joinedAt: now,
    updatedAt: now,
  });
  await enqueueToolsChanged(ex, input.agentId, now);
  await appendEvent(
    ex,
    input.campaignId,
    {
      kind: 'MEMBER_JOINED',
      actor: { ownerId: input.decidedBy, role: 'OWNER' },
      subjectAgentId: input.agentId,
      payload: {
        agent_id: input.agentId,
        role: 'PARTICIPANT',
        via: 'MATCHING',
        matching_request_id: input.requestId,
      },
    },
    now,
  );
  return { membership: 'ACTIVE', role: 'PARTICIPANT', changed: true };
}

/** SQL: the campaign in `column` is open (matching lists a campaign's applications only while it is). */
export function openCampaignSql(column: SQL | { getSQL(): SQL }): SQL {
  return campaignInStatusSql(column, 'ACTIVE');
}

/** SQL: the campaign in `column` has this status (matching stops requests of stopping ones). */
export function campaignInStatusSql(column: SQL | { getSQL(): SQL }, status: 'ACTIVE' | 'STOPPING'): SQL {
  return sql`exists (select 1 from ${campaigns} where ${campaigns.id} = ${column} and ${campaigns.status} = ${status})`;
}
