import type { Clock } from '../../kernel/clock.ts';
import type { ParserPool } from '../../parsing/index.ts';
import type { Database } from '../../storage/database.ts';
import type { OperationContext } from '../operations/index.ts';

/** What the campaigns area needs from the composition root. */
export interface CampaignDeps {
  database: Database;
  clock: Clock;
  /** Signs cursors, so they are bound to caller and query. */
  secret: string;
  /** Quote location for verification runs in the parser pool. */
  parser: ParserPool;
}

/** What the Campaigns tools reach through their context. */
export type CampaignServices = { campaignDeps: CampaignDeps };
export type CampaignCtx = OperationContext<CampaignServices>;
