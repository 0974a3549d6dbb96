import { sql } from 'drizzle-orm';
import type { CampaignStanding, StandingColumn } from '../../identity/index.ts';
import { campaignMembers, campaigns } from '../tables.ts';

/**
 * The caller's campaign standing as one SQL expression over the lookup's "agents" row: identity
 * selects it with the credential, so every MCP request learns it without a second query.
 */
export const standingColumn: StandingColumn = sql<CampaignStanding>`(select case
    when bool_or(${campaignMembers.status} = 'ACTIVE' and ${campaignMembers.role} = 'COORDINATOR') then 'COORDINATOR'
    when bool_or(${campaignMembers.status} = 'ACTIVE') then 'MEMBER'
    when bool_or(${campaignMembers.status} = 'INVITED') then 'INVITED'
    else 'NONE' end
  from ${campaignMembers} join ${campaigns} on ${campaigns.id} = ${campaignMembers.campaignId}
  where ${campaignMembers.agentId} = ${sql.raw('"agents"."id"')} and ${campaigns.status} = 'ACTIVE')`;
