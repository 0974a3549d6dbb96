import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import { preparedStatement } from '../../../storage/prepared.ts';
import {
  type CampaignLink,
  type CampaignLinks,
  type CampaignStanding,
  LINKS_SHOWN,
  type StandingColumn,
} from '../../identity/index.ts';
import { campaignMembers, campaigns } from '../tables.ts';

/**
 * The caller's campaign standing as one SQL expression over the lookup's "agents" row: identity
 * selects it with the credential, so every MCP request learns it without a second query. An
 * identity that is not active (no mode, suspended, revoked) stands nowhere: it is inert in its
 * campaigns too.
 */
export const standingColumn: StandingColumn = sql<CampaignStanding>`(select case
    when ${sql.raw('"agents"."mode"')} = 'NONE' or ${sql.raw('"agents"."status"')} <> 'ACTIVE' then 'NONE'
    when bool_or(${campaignMembers.status} = 'ACTIVE' and ${campaignMembers.role} = 'COORDINATOR' and ${campaigns.status} <> 'CLOSED') then 'COORDINATOR'
    when bool_or(${campaignMembers.status} = 'ACTIVE' and ${campaigns.status} <> 'CLOSED') then 'MEMBER'
    when bool_or(${campaignMembers.status} = 'INVITED' and ${campaigns.status} = 'ACTIVE') then 'INVITED'
    when bool_or(${campaignMembers.status} = 'ACTIVE') then 'FORMER'
    else 'NONE' end
  from ${campaignMembers} join ${campaigns} on ${campaigns.id} = ${campaignMembers.campaignId}
  where ${campaignMembers.agentId} = ${sql.raw('"agents"."id"')})`;

/**
 * The open campaigns an identity is a member of or invited to, for identity_whoami and
 * capabilities_describe: memberships first, then invitations, oldest first within each.
 */
export const campaignLinks: CampaignLinks = async (ex, agentId) =>
  (await linksOf(ex, { agentId })) as CampaignLink[];

/** campaignLinks' statement, prepared: identity_whoami and capabilities_describe read it each call. */
const linksOf = preparedStatement('cairn_campaign_links', (ex) =>
  ex
    .select({
      campaign_id: campaigns.id,
      title: campaigns.title,
      role: campaignMembers.role,
      status: campaignMembers.status,
    })
    .from(campaignMembers)
    .innerJoin(campaigns, eq(campaigns.id, campaignMembers.campaignId))
    .where(
      and(
        eq(campaignMembers.agentId, sql.placeholder('agentId')),
        ne(campaigns.status, 'CLOSED'),
        inArray(campaignMembers.status, ['ACTIVE', 'INVITED', 'OWNER_PENDING']),
      ),
    )
    .orderBy(
      sql`case when ${campaignMembers.status} = 'ACTIVE' then 0 else 1 end`,
      asc(campaignMembers.createdAt),
      asc(campaigns.id),
    )
    .limit(LINKS_SHOWN),
);
