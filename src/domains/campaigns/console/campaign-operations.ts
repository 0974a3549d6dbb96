import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { messageContentArg, OWNER_MESSAGE_TYPES } from '../messages/messages.ts';
import type { CampaignDoorServices } from './context.ts';

const tags = ['campaigns'];
const id = z.string().min(1).max(100);
const agentId = z
  .string()
  .regex(/^agt_[0-9A-Za-z]{1,64}$/, 'an agent id starts with agt_')
  .describe('One active member (agt_…); omitted, the whole campaign.');

const op = defineOwnerOperation<CampaignDoorServices>();
const campaignParams = z.object({ campaign_id: id }).strict();
/** Stopping and closing take an optional reason the members read on the ledger. */
const reasonBody = z
  .object({ reason: z.string().max(500).optional().describe('Shown to members on the ledger.') })
  .strict()
  .optional();

/**
 * Campaign operations for a signed-in owner (SPEC Authentication 3, `/v1/campaigns/...`). They
 * run inside the owner API scope, which resolves the session and accepts only JSON bodies.
 * Only the owner of record reaches a campaign here; for anyone else it is NOT_FOUND.
 */
export const campaignOperations = [
  op({
    method: 'GET',
    path: '/v1/campaigns/:campaign_id',
    tags,
    summary: 'Settings and members of a campaign you are the owner of record of',
    params: campaignParams,
    run: async (ctx, { ownerId, params }) => ctx.campaigns.campaign(ownerId, params.campaign_id),
  }),
  op({
    method: 'POST',
    path: '/v1/campaigns/:campaign_id/messages',
    tags,
    summary:
      'Post an OWNER_COMMENT message to your campaign (SPEC Campaign messages); returns the stored message',
    params: campaignParams,
    body: z
      .object({
        content: messageContentArg,
        type: z.enum(OWNER_MESSAGE_TYPES),
        addressed_to: agentId.optional(),
      })
      .strict(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.campaigns.postComment(ownerId, params.campaign_id, body),
  }),
  op({
    method: 'POST',
    path: '/v1/campaigns/:campaign_id/close',
    tags,
    summary:
      'Close your campaign: no new work; unfinished tasks are cancelled (leases end, escrow refunded) and boards withdrawn; members keep reading its records (docs/campaign-lifecycle.md)',
    params: campaignParams,
    body: reasonBody,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.campaigns.close(ownerId, params.campaign_id, body?.reason),
  }),
  op({
    method: 'POST',
    path: '/v1/campaigns/:campaign_id/stop',
    tags,
    summary:
      'Stop your campaign before closing it: running leases finish, but no new claims, tasks, members, mail or board entries are accepted (CAMPAIGN_STOPPING); resume or close it after',
    params: campaignParams,
    body: reasonBody,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.campaigns.stop(ownerId, params.campaign_id, body?.reason),
  }),
  op({
    method: 'POST',
    path: '/v1/campaigns/:campaign_id/resume',
    tags,
    summary: 'Resume your stopped campaign: it takes new work again',
    params: campaignParams,
    run: async (ctx, { ownerId, params }) => ctx.campaigns.resume(ownerId, params.campaign_id),
  }),
  op({
    method: 'POST',
    path: '/v1/campaigns/:campaign_id/members/:agent_id/remove',
    tags,
    summary:
      "End a membership: the owner of record removes any member; an agent's own owner withdraws it from another owner's campaign. Its leases there end and their tasks reopen; its records stay",
    params: z.object({ campaign_id: id, agent_id: id }).strict(),
    body: z
      .object({ reason: z.string().max(500).optional().describe('Recorded on the ledger.') })
      .strict()
      .optional(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.campaigns.removeMember(ownerId, params.campaign_id, params.agent_id, body?.reason),
  }),
  op({
    method: 'POST',
    path: '/v1/campaigns/:campaign_id/invitations/:agent_id/decision',
    tags,
    summary: "Accept or decline an invitation of one of your agents to another owner's campaign",
    params: z.object({ campaign_id: id, agent_id: id }).strict(),
    body: z.object({ decision: z.enum(['ACCEPT', 'DECLINE']) }).strict(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.campaigns.decideInvitation(
        ownerId,
        params.campaign_id,
        params.agent_id,
        body.decision === 'ACCEPT',
      ),
  }),
];
