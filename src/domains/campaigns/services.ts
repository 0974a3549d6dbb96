import type { OperationContext } from '../../framework/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { ParserPool } from '../../parsing/index.ts';
import type { Database } from '../../storage/database.ts';
import type { ImportService, ReadingService } from '../reading/index.ts';
import type { LedgerFeed } from './ledger/ledger-feed.ts';
import type { LedgerWaiter } from './ledger/ledger-waiter.ts';
import type { CampaignMail, CompletionGate } from './types.ts';

/** What the campaigns area needs from the composition root. */
export interface CampaignDeps {
  database: Database;
  clock: Clock;
  /** Signs cursors, so they are bound to caller and query. */
  secret: string;
  /** Quote location for verification runs in the parser pool. */
  parser: ParserPool;
  /** This process's ledger wake-ups (one LISTEN), for events_watch. */
  ledger: LedgerWaiter;
  /** Reads shared by the watchers one wake-up releases at once. */
  feed: LedgerFeed;
  /** The public address, for console links in answers (fund_url, approval_url). */
  baseUrl: string;
  /** The platform fee in percent, taken at funding on top of a reward. */
  feePct: number;
  /** The campaign's mailbox: mail as evidence, access that ends with a membership (Extensions.campaignMail). */
  campaignMail: CampaignMail;
  /** Checks other areas add before a submission is taken (Extensions.completionGate). */
  completionGate: CompletionGate;
}

/**
 * What the Campaigns tools reach through their context: their own deps, stored evidence, and
 * research imports (evidence_submit with a file).
 */
export type CampaignServices = {
  campaignDeps: CampaignDeps;
  reading: ReadingService;
  imports: ImportService;
};
export type CampaignCtx = OperationContext<CampaignServices>;
