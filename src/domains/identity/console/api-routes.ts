import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idOf } from '../../../web/console/id-params.ts';
import type { ConsoleContext } from './context.ts';

const tags = ['identities'];
const params = z.object({ agent_id: idOf('agt', 'agent') }).strict();

/**
 * An owner's switches on their own identities (docs/campaign-lifecycle.md), inside the owner API
 * scope: the mode, and suspension with a reason. Each reaches the identity at its next call, its
 * campaigns included; another owner's identity is NOT_FOUND.
 */
export async function identityApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/v1/agents/:agent_id/mode',
    {
      schema: {
        tags,
        summary:
          'Set the mode of one of your identities: READ (public reading and campaigns), CAMPAIGN (campaign work only) or NONE (inert everywhere: its leases are released)',
        params,
        body: z.object({ mode: z.enum(['READ', 'CAMPAIGN', 'NONE']) }).strict(),
      },
    },
    async (req) => ctx.management.setMode(ownerOf(req), req.params.agent_id, req.body.mode),
  );

  r.post(
    '/v1/agents/:agent_id/suspend',
    {
      schema: {
        tags,
        summary:
          'Suspend one of your identities with a reason it is told: nothing works for it but identity_whoami and capabilities_describe; its mode is kept for when you lift it',
        params,
        body: z.object({ reason: z.string().min(1).max(500) }).strict(),
      },
    },
    async (req) => ctx.management.suspend(ownerOf(req), req.params.agent_id, req.body.reason),
  );

  r.post(
    '/v1/agents/:agent_id/unsuspend',
    {
      schema: {
        tags,
        summary: 'Lift the suspension of one of your identities: it is back in the mode it had',
        params,
        body: z.object({}).strict().optional(),
      },
    },
    async (req) => ctx.management.unsuspend(ownerOf(req), req.params.agent_id),
  );
}
