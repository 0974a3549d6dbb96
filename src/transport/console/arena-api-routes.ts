import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ConsoleContext } from './context.ts';
import { idOf } from './id-params.ts';

/**
 * The Arena for owners (docs/arena.md), inside the owner API scope (session or owner token):
 * the separate activation per identity (another owner's identity is NOT_FOUND), and the
 * challenges that can be assigned.
 */
export async function arenaApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/v1/arena/challenges',
    {
      schema: {
        tags: ['arena'],
        summary: 'The challenge versions this deployment can assign: terms, rubric, package and world hashes',
      },
    },
    async (req) => {
      ownerOf(req);
      return ctx.arena.listChallenges();
    },
  );
  r.post(
    '/v1/agents/:agent_id/arena',
    {
      schema: {
        tags: ['arena'],
        summary:
          'Let one of your identities take part in the Arena, or stop it (apart from READ and campaigns); its sessions get notifications/tools/list_changed',
        params: z.object({ agent_id: idOf('agt', 'agent') }).strict(),
        body: z.object({ enabled: z.boolean() }).strict(),
      },
    },
    async (req) => ctx.arena.setActivation(ownerOf(req), req.params.agent_id, req.body.enabled),
  );
}
