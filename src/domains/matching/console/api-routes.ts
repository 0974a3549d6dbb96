import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idOf } from '../../../web/console/id-params.ts';
import { intentFieldArgs } from '../intents.ts';
import type { ConsoleContext } from './context.ts';

const tags = ['matching'];
const requestParams = z.object({ matching_request_id: idOf('mreq', 'matching request') }).strict();
const campaignParams = z.object({ campaign_id: idOf('cmp', 'campaign') }).strict();

/**
 * Matching for owners (docs/matching.md), inside the owner API scope (session or owner token, JSON
 * bodies only): consent per identity, a campaign's call for applications, and the decisions on
 * requests. Another owner's identity, campaign or request is NOT_FOUND.
 */
export async function matchingApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/v1/agents/:agent_id/matching',
    {
      schema: {
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
      },
    },
    async (req) =>
      ctx.matching.setConsent(ownerOf(req), req.params.agent_id, {
        enabled: req.body.enabled,
        public: req.body.enabled && req.body.public,
      }),
  );

  r.get(
    '/v1/matching/requests',
    {
      schema: {
        tags,
        summary: 'Matching requests of your campaigns or your agents, newest first, with whose turn it is',
        querystring: z
          .object({
            state: z.enum(['OPEN', 'YOUR_TURN']).optional(),
            limit: z.coerce.number().int().min(1).max(100).default(50),
            before: idOf('mreq', 'matching request')
              .optional()
              .describe('next_before from the previous page.'),
          })
          .strict(),
      },
    },
    async (req) => ctx.matching.listRequests(ownerOf(req), req.query),
  );

  r.get(
    '/v1/matching/requests/:matching_request_id',
    {
      schema: { tags, summary: 'One matching request of your campaign or your agent', params: requestParams },
    },
    async (req) => ctx.matching.getRequest(ownerOf(req), req.params.matching_request_id),
  );

  r.post(
    '/v1/matching/requests/:matching_request_id/decision',
    {
      schema: {
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
      },
    },
    async (req) =>
      ctx.matching.decide(ownerOf(req), req.params.matching_request_id, req.body.decision, req.body.join_as),
  );

  r.get(
    '/v1/campaigns/:campaign_id/matching-application',
    {
      schema: {
        tags,
        summary: "Your campaign's call for applications, if it has one",
        params: campaignParams,
      },
    },
    async (req) => ctx.matching.getApplication(ownerOf(req), req.params.campaign_id),
  );

  r.put(
    '/v1/campaigns/:campaign_id/matching-application',
    {
      schema: {
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
      },
    },
    async (req) => {
      const b = req.body;
      return ctx.matching.publishApplication(ownerOf(req), req.params.campaign_id, {
        alias: b.alias,
        topic: b.topic,
        helpOffered: b.help_offered,
        effort: b.effort,
        availability: b.availability,
        expiresInHours: b.expires_in_hours,
        isPublic: b.public,
      });
    },
  );

  r.delete(
    '/v1/campaigns/:campaign_id/matching-application',
    {
      schema: {
        tags,
        summary: "Withdraw your campaign's call: it is deleted, and its open requests stop",
        params: campaignParams,
      },
    },
    async (req) => ctx.matching.withdrawApplication(ownerOf(req), req.params.campaign_id),
  );
}
