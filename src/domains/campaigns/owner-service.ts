import type { Clock } from '../../kernel/clock.ts';
import type { Database } from '../../storage/database.ts';
import { decideInvitation } from './campaigns.ts';

/**
 * What a signed-in owner does with campaigns from the console and `/v1/campaigns/...`: the same
 * domain functions the tools use, run in a transaction and scoped to that owner.
 */
export class CampaignOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** Accepts or declines an invitation of one of the owner's agents to another owner's campaign. */
  decideInvitation(ownerId: string, campaignId: string, agentId: string, accept: boolean) {
    return this.database.transaction((tx) =>
      decideInvitation(tx, ownerId, campaignId, agentId, accept, this.clock.now()),
    );
  }
}
