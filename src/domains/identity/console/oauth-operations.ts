import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { consentCookieName } from '../http/consent-cookie.ts';
import type { IdentityDoorServices } from './context.ts';

const op = defineOwnerOperation<IdentityDoorServices>();
const tags = ['oauth'];
const id = z.string().min(1).max(100);

/**
 * The native-OAuth operations for a person signed in to the console (SPEC Authentication 3):
 * a consent request, its decision, and the owner's connections. A request is bound to the
 * browser that started it at /oauth/authorize (its consent cookie).
 */
export const oauthOperations = [
  op({
    method: 'GET',
    path: '/v1/oauth/requests/:request_id',
    tags,
    summary: 'Inspect a consent request (signed-in person)',
    params: z.object({ request_id: id }).strict(),
    run: (ctx, { ownerId, params }, { req }) =>
      ctx.oauth.review(ownerId, params.request_id, req.cookies[consentCookieName(ctx.baseUrl)]),
  }),
  op({
    method: 'POST',
    path: '/v1/oauth/requests/:request_id/decision',
    tags,
    summary: 'Allow or decline a consent request (signed-in person)',
    params: z.object({ request_id: id }).strict(),
    body: z
      .object({
        action: z.enum(['allow', 'decline']),
        /** Allow for this identity, already connected through the client (the request's `extendable`), not a new one. */
        agent_id: z
          .string()
          .regex(/^agt_[0-9A-Z]{26}$/)
          .optional(),
      })
      .strict(),
    async run(ctx, { ownerId, params, body }, { req }) {
      const allow = body.action === 'allow';
      const bound = req.cookies[consentCookieName(ctx.baseUrl)];
      const extend = allow ? body.agent_id : undefined;
      const { redirect_to } = await ctx.oauth.decide(ownerId, params.request_id, allow, bound, extend);
      return { status: allow ? 'APPROVED' : 'DECLINED', redirect_to };
    },
  }),
  op({
    method: 'GET',
    path: '/v1/oauth/connections',
    tags,
    summary: "The signed-in person's OAuth connections",
    run: async (ctx, { ownerId }) => ({ connections: await ctx.oauth.connections(ownerId) }),
  }),
  op({
    method: 'POST',
    path: '/v1/oauth/connections/:grant_id/revoke',
    tags,
    summary: 'Revoke an OAuth connection (signed-in person); the JSON body may be {}',
    params: z.object({ grant_id: id }).strict(),
    body: z.object({}).strict().optional(),
    run: (ctx, { ownerId, params }) => ctx.oauth.revokeConnection(ownerId, params.grant_id),
  }),
];
