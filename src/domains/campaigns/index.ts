import type { Area } from '../../framework/index.ts';
import { campaignCli } from './cli.ts';
import { campaignDoors } from './console/doors.ts';
import { contextRead, eventsWatch } from './context-tools.ts';
import { CAMPAIGN_ERRORS } from './errors.ts';
import {
  findingCreate,
  findingGet,
  findingList,
  findingReview,
  researchExportStix,
} from './findings/finding-tools.ts';
import { agentDirectory, campaignGraphTool, campaignMetricsTool } from './insights/insight-tools.ts';
import {
  campaignCreate,
  campaignInvite,
  campaignJoin,
  campaignLeave,
  campaignList,
  campaignMemberRemove,
  campaignStatus,
} from './membership/campaign-tools.ts';
import {
  decisionRecord,
  messageAppend,
  messageSend,
  proposalCreate,
  proposalRespond,
} from './messages/message-tools.ts';
import { rewardRelease } from './rewards/reward-tools.ts';
import { taskClaim, taskDelegate, taskHeartbeat, taskRelease } from './tasks/lease-tools.ts';
import { taskAssign, taskEdit, taskGet, taskHistory, taskList, taskPublish } from './tasks/task-tools.ts';
import { type CampaignMail, type CompletionGate, noCampaignMail, noCompletionGate } from './types.ts';
import { evidenceSubmit, resultVerify, taskComplete } from './verification/completion-tools.ts';

export { BOARD_PURPOSES, type BoardPurpose, MAX_BOARD_TASKS, slugArg } from './boards/board-rules.ts';
export { BoardService } from './boards/owner-boards.ts';
export { type BoardFilters, PublicBoards } from './boards/public-boards.ts';
export { closeByOperator } from './campaign-close.ts';
export {
  type CampaignPageChange,
  type CampaignPagePart,
  campaignPageChange,
} from './console/campaign-parts.ts';
export { FindingOwnerService } from './findings/owner-findings.ts';
export { ResearchReports } from './findings/reports.ts';
export { resolveCampaignFeed } from './ledger/events-feed.ts';
export { listEventsForOwner, type PresentedEvent } from './ledger/ledger-repo.ts';
export {
  type Actor,
  appendEvent,
  type CampaignRow,
  campaignStatusOf,
  cursorArg,
  limitArg,
  longText,
  type Membership,
  mailIdArg,
  memberTool,
  ownedCampaign,
  requireMembership,
} from './mail-link.ts';
export { resumeByOperator, stopByOperator } from './membership/campaign-stop.ts';
export {
  admitMatched,
  campaignForMatching,
  campaignInStatusSql,
  coordinatedCampaignIds,
  isActiveMember,
  type MatchingCampaign,
  openCampaignSql,
  ownedOpenCampaign,
} from './membership/matched-joins.ts';
export {
  listMessagesForOwner,
  messageContentArg,
  OWNER_MESSAGE_TYPES,
  postOwnerComment,
} from './messages/messages.ts';
export { CampaignOwnerService } from './owner-campaigns.ts';
export { RewardOwnerService } from './rewards/owner-rewards.ts';
export { rewardArgs, rewardOf } from './rewards/reward-terms.ts';
export type { CampaignDeps, CampaignServices } from './services.ts';
export {
  activeRole,
  type CampaignActor,
  campaignForSkills,
  leaseOfTask,
  lockTaskForSkills,
  recordCampaignSkillEvent,
  type SkillsCampaign,
  type SkillsTask,
  skillStandingsOf,
  taskForSkills,
} from './skills-link.ts';
export { sweepExpiredLeases, sweepStoppedHolders } from './tasks/lease-sweeper.ts';
export { type PublishInput, publishTaskAsOwner } from './tasks/task-publish.ts';
export {
  type CampaignMail,
  type CompletionGate,
  type MailAsEvidence,
  noCampaignMail,
  noCompletionGate,
} from './types.ts';

import { jobFailureLevel } from '../../storage/unavailable.ts';
import { BoardService } from './boards/owner-boards.ts';
import { publicTaskTake, publicTaskWork } from './boards/pickup-tools.ts';
import { PublicBoards } from './boards/public-boards.ts';
import * as boardTables from './boards/tables.ts';
import { FindingOwnerService } from './findings/owner-findings.ts';
import { ResearchReports } from './findings/reports.ts';
import * as findingTables from './findings/tables.ts';
import { eventsFeed } from './ledger/events-feed.ts';
import { LedgerFeed } from './ledger/ledger-feed.ts';
import { LedgerWaiter } from './ledger/ledger-waiter.ts';
import { PUBLISHED_CAMPAIGN_LIMITS } from './limits.ts';
import { campaignLinks, standingColumn } from './membership/standing.ts';
import { CampaignOwnerService } from './owner-campaigns.ts';
import { RewardOwnerService } from './rewards/owner-rewards.ts';
import * as rewardTables from './rewards/tables.ts';
import * as ownTables from './tables.ts';

const tables = { ...ownTables, ...findingTables, ...rewardTables, ...boardTables };

import { campaignCoverage } from './read-coverage.ts';
import { LeaseSweeper } from './tasks/lease-sweeper.ts';

/** Campaigns: membership, tasks and leases, messages and proposals, the ledger, verified completion. */
export const campaignsArea = {
  name: 'campaigns',
  cli: campaignCli,
  doors: campaignDoors,
  tables,
  errors: CAMPAIGN_ERRORS,
  extensionDefaults: { completionGate: noCompletionGate, campaignMail: noCampaignMail },
  limits: PUBLISHED_CAMPAIGN_LIMITS,
  operations: [
    campaignCreate,
    campaignInvite,
    campaignJoin,
    campaignLeave,
    campaignMemberRemove,
    campaignList,
    campaignStatus,
    messageAppend,
    messageSend,
    proposalCreate,
    proposalRespond,
    decisionRecord,
    contextRead,
    eventsWatch,
    taskPublish,
    taskList,
    taskGet,
    taskClaim,
    taskHeartbeat,
    taskRelease,
    taskDelegate,
    taskEdit,
    taskHistory,
    taskAssign,
    taskComplete,
    resultVerify,
    evidenceSubmit,
    findingCreate,
    findingGet,
    findingList,
    findingReview,
    researchExportStix,
    rewardRelease,
    publicTaskTake,
    publicTaskWork,
    agentDirectory,
    campaignMetricsTool,
    campaignGraphTool,
  ],
  extensions: { callerStanding: standingColumn, campaignLinks, readCoverage: campaignCoverage },
  start({ database, clock, secret, parser, logger, config, extensions }) {
    // This process's ledger wake-ups (one LISTEN), for events_watch.
    const ledger = new LedgerWaiter(database);
    // Puts lease expiries on the ledger for watchers; every replica may run it.
    const leaseSweeper = new LeaseSweeper(database, clock, (result) => {
      if (result instanceof Error)
        logger[jobFailureLevel(result)]({ err: result }, 'lease sweep failed; it runs again soon');
      else if (Object.values(result).some((n) => n > 0)) logger.debug({ result }, 'lease sweep done');
    });
    return {
      services: {
        campaignDeps: {
          database,
          clock,
          secret,
          parser,
          ledger,
          feed: new LedgerFeed(database),
          baseUrl: config.baseUrl,
          feePct: config.platformFeePct,
          completionGate: extensions.completionGate,
          campaignMail: extensions.campaignMail,
        },
        campaigns: new CampaignOwnerService(database, clock, ledger, extensions.campaignMail),
        ownerFindings: new FindingOwnerService(database, secret, clock),
        researchReports: new ResearchReports(database, clock, secret),
        ownerRewards: new RewardOwnerService(database, clock, secret, config.baseUrl),
        boards: new BoardService(database, clock, config.baseUrl),
        publicBoards: new PublicBoards(database, secret, config.baseUrl),
      },
      // Members can be woken for their campaign's new events (a 2026-07-28 listen).
      feeds: [eventsFeed(database, secret, ledger)],
      // A waiting events_watch answers its heartbeat as soon as the server starts closing.
      workers: [
        leaseSweeper,
        {
          start: () => {},
          drain: async () => {
            await ledger.close();
          },
          stop: () => {},
        },
      ],
    };
  },
} satisfies Area;

/** The area's tables, added to the schema type of every database handle (storage/tables.ts). */
type OwnTables = typeof tables;
declare module '../../storage/tables.ts' {
  interface Tables extends OwnTables {}
}

/** What campaigns ask of other areas (docs/architecture.md, Extensions). */
declare module '../../framework/area.ts' {
  interface Extensions {
    /** A check before a submission is taken (skills: attached skills read first). */
    completionGate: CompletionGate;
    /** The campaign's mailbox: mail as evidence, access that ends with a membership (mail). */
    campaignMail: CampaignMail;
  }
}

/** The ids this area makes (kernel/ids.ts). */
declare module '../../kernel/ids.ts' {
  interface IdPrefixes {
    /** campaigns. */
    cmp: 'campaigns';
    /** tasks. */
    task: 'campaigns';
    /** leases. */
    lse: 'campaigns';
    /** submissions. */
    sub: 'campaigns';
    /** messages. */
    msg: 'campaigns';
    /** ledger events. */
    evt: 'campaigns';
    /** task history entries. */
    thx: 'campaigns';
    /** peer reviews. */
    rvw: 'campaigns';
    /** published reports. */
    rpt: 'campaigns';
    /** release requests. */
    apr: 'campaigns';
    /** public entries. */
    pen: 'campaigns';
  }
}
