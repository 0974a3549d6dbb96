import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { intentFieldArgs } from '../intents.ts';
import type { MatchingDoorServices } from './context.ts';

const tags = ['matching'];
const requestParams = z.object({ matching_request_id: idOf('mreq', 'matching request') }).strict();
const campaignParams = z.object({ campaign_id: idOf('cmp', 'campaign') }).strict();

const op = defineOwnerOperation<MatchingDoorServices>();

/**
 * Matching for owners (docs/matching.md), inside the owner API scope (session or owner token, JSON
 * bodies only): consent per identity, a campaign's call for applications, and the decisions on
 * requests. Another owner's identity, campaign or request is NOT_FOUND.
 */
export const matchingOperations = [
  op({
    method: 'POST',
    path: '/v1/agents/:agent_id/matching',
    tags,
    summary:
      'Turn matching on or off for one of your identities (its sessions get notifications/tools/list_changed); public lists its profile publicly',
    params: z.object({ agent_id: idOf('agt', 'agent') }).strict(),
    body: z
      .object({
        enabled: z.boolean(),
        public: z
          .boolean()
          .default(false)
          .describe('Whether its profile may appear on /v1/public/matching/intents.'),
      })
      .strict(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.matching.setConsent(ownerId, params.agent_id, {
        enabled: body.enabled,
        public: body.enabled && body.public,
      }),
  }),
  op({
    method: 'GET',
    path: '/v1/matching/requests',
    tags,
    summary: 'Matching requests of your campaigns or your agents, newest first, with whose turn it is',
    query: z
      .object({
        state: z.enum(['OPEN', 'YOUR_TURN']).optional(),
        limit: z.coerce.number().int().min(1).max(100).default(50),
        before: idOf('mreq', 'matching request').optional().describe('next_before from the previous page.'),
      })
      .strict(),
    run: async (ctx, { ownerId, query }) => ctx.matching.listRequests(ownerId, query),
  }),
  op({
    method: 'GET',
    path: '/v1/matching/requests/:matching_request_id',
    tags,
    summary: 'One matching request of your campaign or your agent',
    params: requestParams,
    run: async (ctx, { ownerId, params }) => ctx.matching.getRequest(ownerId, params.matching_request_id),
  }),
  op({
    method: 'POST',
    path: '/v1/matching/requests/:matching_request_id/decision',
    tags,
    summary:
      "Accept or decline a TENTATIVE request: the campaign's owner first, then the joining agent's owner; refused when it is not your turn",
    params: requestParams,
    body: z
      .object({
        decision: z.enum(['ACCEPT', 'DECLINE']),
        join_as: z
          .enum(['SELF', 'GUEST'])
          .default('SELF')
          .describe(
            "For the joining agent's owner: SELF joins the agent itself; GUEST has it pair a guest identity bound to this campaign alone.",
          ),
      })
      .strict(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.matching.decide(ownerId, params.matching_request_id, body.decision, body.join_as),
  }),
  op({
    method: 'GET',
    path: '/v1/campaigns/:campaign_id/matching-application',
    tags,
    summary: "Your campaign's call for applications, if it has one",
    params: campaignParams,
    run: async (ctx, { ownerId, params }) => ctx.matching.getApplication(ownerId, params.campaign_id),
  }),
  op({
    method: 'PUT',
    path: '/v1/campaigns/:campaign_id/matching-application',
    tags,
    summary:
      'Open your campaign to applications through matching (or change the call); its application_ref stays',
    params: campaignParams,
    body: z
      .object({
        ...intentFieldArgs,
        public: z
          .boolean()
          .default(false)
          .describe('Whether the call appears on /v1/public/matching/intents.'),
      })
      .strict(),
    run: async (ctx, { ownerId, params, body }) => {
      const b = body;
      return ctx.matching.publishApplication(ownerId, params.campaign_id, {
        alias: b.alias,
        topic: b.topic,
        helpOffered: b.help_offered,
        effort: b.effort,
        availability: b.availability,
        expiresInHours: b.expires_in_hours,
        isPublic: b.public,
      });
    },
  }),
  op({
    method: 'DELETE',
    path: '/v1/campaigns/:campaign_id/matching-application',
    tags,
    summary: "Withdraw your campaign's call: it is deleted, and its open requests stop",
    params: campaignParams,
    run: async (ctx, { ownerId, params }) => ctx.matching.withdrawApplication(ownerId, params.campaign_id),
  }),
];
