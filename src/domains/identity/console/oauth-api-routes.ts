import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OwnerOf } from '../../../framework/index.ts';
import { consentCookieName } from '../http/consent-cookie.ts';
import type { ConsoleContext } from './context.ts';

const tags = ['oauth'];
const id = z.string().min(1).max(100);

/**
 * The native-OAuth operations for a person signed in to the console (SPEC Authentication 3):
 * `/v1/oauth/requests/{id}`, its decision, and the owner's connections, inside the owner API
 * scope (JSON with the Cairn error envelope, never the console's HTML pages).
 */
export async function oauthApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  owner: OwnerOf,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/v1/oauth/requests/:request_id',
    {
      schema: {
        tags,
        summary: 'Inspect a consent request (signed-in person)',
        params: z.object({ request_id: id }).strict(),
      },
    },
    async (req) => {
      return ctx.oauth.review(owner(req), req.params.request_id, req.cookies[consentCookieName(ctx.baseUrl)]);
    },
  );

  r.post(
    '/v1/oauth/requests/:request_id/decision',
    {
      schema: {
        tags,
        summary: 'Allow or decline a consent request (signed-in person)',
        params: z.object({ request_id: id }).strict(),
        body: z.object({ action: z.enum(['allow', 'decline']) }).strict(),
      },
    },
    async (req) => {
      const allow = req.body.action === 'allow';
      const bound = req.cookies[consentCookieName(ctx.baseUrl)];
      const { redirect_to } = await ctx.oauth.decide(owner(req), req.params.request_id, allow, bound);
      return { status: allow ? 'APPROVED' : 'DECLINED', redirect_to };
    },
  );

  r.get(
    '/v1/oauth/connections',
    { schema: { tags, summary: "The signed-in person's OAuth connections" } },
    async (req) => ({ connections: await ctx.oauth.connections(owner(req)) }),
  );

  r.post(
    '/v1/oauth/connections/:grant_id/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke an OAuth connection (signed-in person); the JSON body may be {}',
        params: z.object({ grant_id: id }).strict(),
        body: z.object({}).strict().optional(),
      },
    },
    async (req) => ctx.oauth.revokeConnection(owner(req), req.params.grant_id),
  );
}
