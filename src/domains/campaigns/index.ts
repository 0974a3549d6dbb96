import type { Operation } from '../operations/index.ts';
import {
  campaignCreate,
  campaignInvite,
  campaignJoin,
  campaignList,
  campaignStatus,
} from './campaign-tools.ts';
import type { CampaignServices } from './context.ts';

export type { CampaignDeps, CampaignServices } from './context.ts';
export { LEDGER_CHANNEL } from './ledger.ts';
export { CampaignOwnerService } from './owner-service.ts';
export { standingColumn } from './standing.ts';

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
  [campaignCreate, campaignInvite, campaignJoin, campaignList, campaignStatus] as Array<
    Operation<CampaignServices>
  >
).sort((a, b) => rank(a.name) - rank(b.name));
