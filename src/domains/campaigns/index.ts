import type { Operation } from '../operations/index.ts';
import { agentDirectory, campaignGraphTool, campaignMetricsTool } from './insights/insight-tools.ts';
import { contextRead, eventsWatch } from './ledger/ledger-tools.ts';
import {
  campaignCreate,
  campaignInvite,
  campaignJoin,
  campaignList,
  campaignStatus,
} from './membership/campaign-tools.ts';
import {
  decisionRecord,
  messageAppend,
  messageSend,
  proposalCreate,
  proposalRespond,
} from './messages/message-tools.ts';
import type { CampaignServices } from './services.ts';
import { taskClaim, taskDelegate, taskHeartbeat, taskRelease } from './tasks/lease-tools.ts';
import { taskAssign, taskEdit, taskGet, taskHistory, taskList, taskPublish } from './tasks/task-tools.ts';
import { evidenceSubmit, resultVerify, taskComplete } from './verification/completion-tools.ts';

export { LEDGER_CHANNEL } from './ledger/ledger.ts';
export { LedgerFeed } from './ledger/ledger-feed.ts';
export { listEventsForOwner, type PresentedEvent } from './ledger/ledger-repo.ts';
export { type LedgerTicket, LedgerWaiter, type WaitOutcome } from './ledger/ledger-waiter.ts';
export { standingColumn } from './membership/standing.ts';
export {
  listMessagesForOwner,
  messageContentArg,
  OWNER_MESSAGE_TYPES,
  postOwnerComment,
  presentMessage,
} from './messages/messages.ts';
export { CampaignOwnerService } from './owner-campaigns.ts';
export type { CampaignDeps, CampaignServices } from './services.ts';
export { LeaseSweeper, sweepExpiredLeases } from './tasks/lease-sweeper.ts';
export { currentLeases, expireDueLeases, requireCurrentLease } from './tasks/leases.ts';
export { campaignCoverage } from './tasks/read-coverage.ts';
export { type PublishInput, publishTaskAsOwner } from './tasks/task-publish.ts';

/** SPEC's order of the Campaigns group (its tool table); the catalog lists them so. */
const SPEC_ORDER = [
  'campaign_create',
  'agent_directory',
  'campaign_invite',
  'campaign_join',
  'campaign_metrics',
  'task_publish',
  'campaign_list',
  'campaign_status',
  'campaign_graph',
  'task_list',
  'task_get',
  'task_claim',
  'task_heartbeat',
  'task_release',
  'task_complete',
  'task_delegate',
  'task_edit',
  'task_history',
  'task_assign',
  'message_append',
  'proposal_create',
  'proposal_respond',
  'decision_record',
  'context_read',
  'events_watch',
  'evidence_submit',
  'evidence_get',
  'result_verify',
  'message_send',
];

const rank = (name: string) => {
  const i = SPEC_ORDER.indexOf(name);
  return i === -1 ? SPEC_ORDER.length : i;
};

/** The Campaigns tools in SPEC's order. */
export const campaignOperations: Array<Operation<CampaignServices>> = (
  [
    campaignCreate,
    campaignInvite,
    campaignJoin,
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
    agentDirectory,
    campaignMetricsTool,
    campaignGraphTool,
  ] as Array<Operation<CampaignServices>>
).sort((a, b) => rank(a.name) - rank(b.name));
