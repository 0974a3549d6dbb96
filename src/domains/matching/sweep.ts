import { or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { campaignInStatusSql, openCampaignSql } from '../campaigns/index.ts';
import { revokedAgent } from '../identity/index.ts';
import { beginMatchingWrite, expireRequests, stopOpenRequests } from './changes.ts';
import { matchingRequests } from './tables.ts';

/**
 * Writes what has ended without anyone deciding, so matching_watch reports it: open requests past
 * their expiry (answers already treat them as stopped), open requests whose requester or
 * joining agent was revoked since (revocation is identity's and knows nothing of matching), and
 * open requests of campaigns that closed.
 */
export async function sweepMatching(database: Database, now: Date): Promise<Record<string, number>> {
  return database.transaction(async (tx) => {
    await beginMatchingWrite(tx);
    const expired = await expireRequests(tx, sql`true`, now);
    const revoked = await stopOpenRequests(
      tx,
      or(
        revokedAgent(matchingRequests.requesterAgentId),
        revokedAgent(matchingRequests.joinerAgentId),
      ) as SQL,
      'AGENT_REVOKED',
      now,
    );
    // Stopping or closing a campaign is the campaigns area's and knows nothing of matching either.
    const stopped = await stopOpenRequests(
      tx,
      campaignInStatusSql(matchingRequests.campaignId, 'STOPPING'),
      'CAMPAIGN_STOPPED',
      now,
    );
    const closed = await stopOpenRequests(
      tx,
      sql`not ${openCampaignSql(matchingRequests.campaignId)}`,
      'CAMPAIGN_CLOSED',
      now,
    );
    return {
      expired_requests: expired.length,
      revoked_requests: revoked.length,
      stopped_campaign_requests: stopped.length,
      closed_campaign_requests: closed.length,
    };
  });
}
