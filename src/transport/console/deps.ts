import type {
  ArenaOwnerService,
  ArenaReviewService,
  SuperchallengeReviewService,
} from '../../domains/arena/index.ts';
import type {
  BoardService,
  CampaignOwnerService,
  FindingOwnerService,
  MailService,
  ResearchReports,
  RewardOwnerService,
} from '../../domains/campaigns/index.ts';
import type { FundsService } from '../../domains/funds/index.ts';
import type {
  DeviceService,
  ManagementService,
  OAuthConsentService,
  OwnerService,
} from '../../domains/identity/index.ts';
import type { MatchingOwnerService } from '../../domains/matching/index.ts';
import type { ImportService, OwnerEvidence } from '../../domains/reading/index.ts';
import type {
  SkillArenaOwnerService,
  SkillGrantOwnerService,
  SkillHistoryOwnerService,
  SkillLibraryOwnerService,
  SkillLifecycleOwnerService,
  SkillOwnerService,
  SkillTaskOwnerService,
} from '../../domains/skills/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import { type WebContext, webContext } from '../../web/console/context.ts';
import type { BodyDecoder } from '../../web/http/large-body.ts';

export interface ConsoleDeps {
  owners: OwnerService;
  management: ManagementService;
  device: DeviceService;
  /** Native OAuth: consent requests and connections. */
  oauth: OAuthConsentService;
  /** Campaigns as their owners manage them. */
  campaigns: CampaignOwnerService;
  /** Findings and STIX exports of the owner's campaigns. */
  ownerFindings: FindingOwnerService;
  /** Research reports the owner publishes. */
  researchReports: ResearchReports;
  /** Balances and postings of points and dollars, and the operator's credit. */
  funds: FundsService;
  /** Campaign mailboxes: address, attempts, access requests and grants. */
  mail: MailService;
  /** Public task boards: publish, change, withdraw. */
  boards: BoardService;
  /** Matching: consent per identity, campaigns' calls for applications, the owners' decisions. */
  matching: MatchingOwnerService;
  /** The Arena: the owner's activation per identity. */
  arena: ArenaOwnerService;
  /** Arena reports and appeals, for the reviewers the operator named. */
  arenaReview: ArenaReviewService;
  /** Superchallenges waiting for (and decided by) those reviewers. */
  arenaSuperchallenges: SuperchallengeReviewService;
  /** Skills: drafts, versions, imports and downloads of the owner's account. */
  skills: SkillOwnerService;
  /** Grants of the owner's skill versions. */
  skillGrants: SkillGrantOwnerService;
  /** Archive, block and privacy byte deletion of the owner's skills and versions. */
  skillLifecycle: SkillLifecycleOwnerService;
  /** History, activity, usage, diffs and distribution consents of the owner's versions. */
  skillHistory: SkillHistoryOwnerService;
  /** Campaign skill libraries of the owner's campaigns. */
  skillLibrary: SkillLibraryOwnerService;
  /** Skills attached to the owner's campaigns' tasks: attachments, usage, materials export. */
  skillTasks: SkillTaskOwnerService;
  /** Skill packages the owner shared to Arena challenge versions. */
  skillArena: SkillArenaOwnerService;
  /** Release requests to decide, tasks to fund or cancel. */
  ownerRewards: RewardOwnerService;
  /** The platform fee in percent (CAIRN_PLATFORM_FEE_PCT): a reward published from the console carries it. */
  feePct: number;
  /** Who operates the instance (CAIRN_OPERATOR_EMAILS, else the first owner), and owners by email for their credits. */
  operators: {
    isOperator(ownerId: string): Promise<boolean>;
    ownerByEmail(email: string): Promise<{ id: string; email: string }>;
    /** The Arena reviewers, and naming one (or no longer): an operator's, OPERATOR_REQUIRED otherwise. */
    arenaReviewers(ownerId: string): Promise<{ reviewers: Array<{ owner_id: string; email: string }> }>;
    setArenaReviewer(
      ownerId: string,
      email: string,
      enabled: boolean,
    ): Promise<{ owner_id: string; email: string; arena_reviewer: boolean; changed: boolean }>;
  };
  /** Research imports, and evidence as its owner reads it. */
  imports: ImportService;
  /** Reads large request bodies off the main thread (the parser pool). */
  bodies: BodyDecoder;
  ownerEvidence: OwnerEvidence;
  /** An agent's MCP bearer (cd_acc_, cd_prj_) resolved to its identity; throws when not valid. */
  agentOf(bearer: string): Promise<{ agentId: string; ownerId: string }>;
  /** The resolved server secret: CSRF tokens are keyed with it. */
  secret: string;
  baseUrl: string;
  clock: Clock;
}

/** What every console route shares: the services, the CSRF signer and the cookie rules. */
export type ConsoleContext = ConsoleDeps & WebContext;

export function buildContext(deps: ConsoleDeps): ConsoleContext {
  return { ...deps, ...webContext(deps.secret, deps.baseUrl, deps.clock) };
}
