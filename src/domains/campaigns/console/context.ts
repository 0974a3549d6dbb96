import type { DoorContext } from '../../../framework/index.ts';
import type { FundsService } from '../../funds/index.ts';
import type { Operators, OwnerService } from '../../identity/index.ts';
import type { ImportService, OwnerEvidence } from '../../reading/index.ts';
import type { BoardService } from '../boards/owner-boards.ts';
import type { PublicBoards } from '../boards/public-boards.ts';
import type { FindingOwnerService } from '../findings/owner-findings.ts';
import type { ResearchReports } from '../findings/reports.ts';
import type { CampaignOwnerService } from '../owner-campaigns.ts';
import type { RewardOwnerService } from '../rewards/owner-rewards.ts';

/** The services the campaign pages and owner routes use. */
export interface CampaignDoorServices {
  campaigns: CampaignOwnerService;
  ownerRewards: RewardOwnerService;
  ownerFindings: FindingOwnerService;
  researchReports: ResearchReports;
  boards: BoardService;
  /** The published boards, as anyone reads them (http/public-routes.ts). */
  publicBoards: PublicBoards;
  /** Balances and postings, and the operator's credit (rewards pages). */
  funds: FundsService;
  operators: Operators;
  /** Research imports, and evidence as its owner reads it (reading's). */
  imports: ImportService;
  ownerEvidence: OwnerEvidence;
  /** The live page's event stream resolves the session itself (live-routes.ts). */
  owners: OwnerService;
}

export type ConsoleContext = DoorContext<CampaignDoorServices>;
