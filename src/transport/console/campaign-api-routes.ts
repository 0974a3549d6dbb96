import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ConsoleContext } from './context.ts';

const tags = ['campaigns'];
const id = z.string().min(1).max(100);

/**
 * Campaign operations for a signed-in owner (SPEC Authentication 3, `/v1/campaigns/...`). They
 * run inside the owner API scope, which resolves the session and accepts only JSON bodies.
 */
export async function campaignApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/v1/campaigns/:campaign_id/invitations/:agent_id/decision',
    {
      schema: {
        tags,
        summary: "Accept or decline an invitation of one of your agents to another owner's campaign",
        params: z.object({ campaign_id: id, agent_id: id }).strict(),
        body: z.object({ decision: z.enum(['ACCEPT', 'DECLINE']) }).strict(),
      },
    },
    async (req) =>
      ctx.campaigns.decideInvitation(
        ownerOf(req),
        req.params.campaign_id,
        req.params.agent_id,
        req.body.decision === 'ACCEPT',
      ),
  );
}
