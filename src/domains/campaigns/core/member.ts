import { and, asc, eq, inArray, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { preparedStatement } from '../../../storage/prepared.ts';
import type { Caller } from '../../identity/index.ts';
import { campaignClosed, requireTakingNew } from '../errors.ts';
import { campaignDefaults, campaignMembers, campaigns } from '../tables.ts';
import type { Actor } from './ledger.ts';

export type CampaignRow = typeof campaigns.$inferSelect;
/** What a call is about to do in the campaign: change its records, or start new work in it. */
export interface MembershipCheck {
  forChange?: boolean;
  forNew?: boolean;
}
export type MemberRole = 'COORDINATOR' | 'PARTICIPANT';
export type VisibilityMode = CampaignRow['visibility'];

/** An active member inside one campaign: who they are there and how the campaign shares. */
export interface Membership {
  campaign: CampaignRow;
  agentId: string;
  role: MemberRole;
}

export function actorOf(m: Membership): Actor {
  return { agentId: m.agentId, role: m.role };
}

/**
 * The campaign a campaign tool acts in, with the caller's role, rechecked on every call (SPEC
 * Campaign): the explicit campaign_id, else the identity's default, else its only campaign.
 * `forChange` also refuses closed campaigns; `forNew` (what starts new work: claims, tasks,
 * invitations) refuses stopping ones too.
 */
export async function requireMembership(
  ex: Executor,
  caller: Caller,
  campaignId: string | undefined,
  opts: MembershipCheck = {},
): Promise<Membership> {
  const id = campaignId ?? (await defaultCampaignOf(ex, caller.agent.id));
  const [row] = await campaignWithMember(ex, { campaignId: id, agentId: caller.agent.id });
  return checkMembership(caller, id, row, opts);
}

/** The campaign and the caller's membership row: every campaign tool call reads it, so it is prepared. */
const campaignWithMember = preparedStatement('cairn_campaign_with_member', (ex) =>
  ex
    .select({ campaign: campaigns, role: campaignMembers.role, status: campaignMembers.status })
    .from(campaigns)
    .leftJoin(campaignMembers, memberOn(sql.placeholder('agentId')))
    .where(eq(campaigns.id, sql.placeholder('campaignId'))),
);

/** The join condition from campaigns to an agent's membership row (for a left join). */
export function memberOn(agentId: string | Placeholder): SQL {
  return and(eq(campaignMembers.campaignId, campaigns.id), eq(campaignMembers.agentId, agentId)) as SQL;
}

/**
 * requireMembership's checks on a campaign row read with the caller's membership (`memberOn`),
 * for callers that read both with something else in one statement (taskForMember).
 */
export function checkMembership(
  caller: Caller,
  id: string,
  row: { campaign: CampaignRow; role: MemberRole | null; status: string | null } | undefined,
  opts: MembershipCheck = {},
): Membership {
  if (row?.status !== 'ACTIVE' || !row.role) {
    throw new DomainError(
      'NOT_A_MEMBER',
      `This identity is not an active member of campaign ${id}.`,
      { campaign_id: id, membership_status: row?.status ?? null },
      {
        next: 'campaign_list shows the campaigns you are in; pass one of them as campaign_id, or join this one with campaign_join.',
        alternatives: [
          { tool: 'campaign_list', action: 'See the campaigns you are in or invited to.' },
          {
            tool: 'campaign_join',
            action: 'Join or apply to this campaign.',
            arguments: { campaign_id: id },
          },
        ],
      },
    );
  }
  if ((opts.forChange || opts.forNew) && row.campaign.status === 'CLOSED') {
    throw campaignClosed(id);
  }
  if (opts.forNew) requireTakingNew(row.campaign, 'AGENT');
  return { campaign: row.campaign, agentId: caller.agent.id, role: row.role };
}

/** The move after ROLE_REQUIRED: a coordinator does it; the member finds one and asks. */
export function askACoordinator(campaignId: string) {
  return {
    next: 'Ask a coordinator of the campaign (agent_directory names them) with message_send or message_append.',
    alternatives: [
      { tool: 'agent_directory', action: 'Find the coordinators.', arguments: { campaign_id: campaignId } },
      {
        tool: 'message_append',
        action: 'Ask the coordinators in the campaign thread (type QUESTION).',
        arguments: { campaign_id: campaignId, type: 'QUESTION' },
      },
    ],
  };
}

/** Refuses unless the member coordinates the campaign. */
export function requireCoordinator(m: Membership, action: string): void {
  if (m.role !== 'COORDINATOR') {
    throw new DomainError(
      'ROLE_REQUIRED',
      `Only a coordinator of this campaign may ${action}.`,
      { campaign_id: m.campaign.id, required_role: 'COORDINATOR', your_role: m.role },
      askACoordinator(m.campaign.id),
    );
  }
}

async function defaultCampaignOf(ex: Executor, agentId: string): Promise<string> {
  const [chosen] = await ex
    .select({ campaignId: campaignDefaults.campaignId })
    .from(campaignDefaults)
    .where(eq(campaignDefaults.agentId, agentId));
  if (chosen) return chosen.campaignId;
  const active = await ex
    .select({ campaignId: campaignMembers.campaignId })
    .from(campaignMembers)
    .where(and(eq(campaignMembers.agentId, agentId), eq(campaignMembers.status, 'ACTIVE')))
    .orderBy(asc(campaignMembers.joinedAt))
    .limit(21);
  if (active.length === 1 && active[0]) return active[0].campaignId;
  throw new DomainError(
    'CAMPAIGN_REQUIRED',
    active.length === 0
      ? 'This identity is not in any campaign; pass campaign_id or join one.'
      : 'This identity is in several campaigns and has no default; pass campaign_id.',
    { campaign_ids: active.slice(0, 20).map((r) => r.campaignId) },
  );
}

/** Makes a campaign the identity's default (on create and join, and when asked). */
export async function setDefaultCampaign(ex: Executor, agentId: string, campaignId: string, now: Date) {
  await ex
    .insert(campaignDefaults)
    .values({ agentId, campaignId, updatedAt: now })
    .onConflictDoUpdate({ target: campaignDefaults.agentId, set: { campaignId, updatedAt: now } });
}

/** Active members among `agentIds` of a campaign, with roles. */
export async function activeMembers(ex: Executor, campaignId: string, agentIds: string[]) {
  if (agentIds.length === 0) return [];
  return ex
    .select({ agentId: campaignMembers.agentId, role: campaignMembers.role })
    .from(campaignMembers)
    .where(
      and(
        eq(campaignMembers.campaignId, campaignId),
        inArray(campaignMembers.agentId, agentIds),
        eq(campaignMembers.status, 'ACTIVE'),
      ),
    );
}
