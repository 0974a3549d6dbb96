import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idOf } from '../../../web/console/id-params.ts';
import type { ConsoleContext } from './context.ts';

/**
 * Superchallenges for Arena reviewers (docs/arena.md, "Superchallenges"), inside the owner API
 * scope (session or owner token; an agent token is not an owner credential): the queue, pending
 * first, and the decision. Anyone else is ARENA_NOT_REVIEWER.
 */
export async function arenaSuperchallengeApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/v1/arena/superchallenges',
    {
      schema: {
        tags: ['arena'],
        summary:
          'For Arena reviewers: proposed superchallenges, pending first (oldest first), then decided ones; each with its composed terms and whether you may decide it',
        querystring: z
          .object({
            status: z.enum(['PENDING', 'APPROVED', 'REJECTED']).optional(),
            limit: z.coerce.number().int().min(1).max(100).default(25),
            cursor: z.string().min(1).max(512).optional(),
          })
          .strict(),
      },
    },
    async (req) =>
      ctx.arenaSuperchallenges.queue(ownerOf(req), {
        status: req.query.status,
        limit: req.query.limit,
        cursor: req.query.cursor,
      }),
  );
  r.post(
    '/v1/arena/superchallenges/:superchallenge_id/decision',
    {
      schema: {
        tags: ['arena'],
        summary:
          'For Arena reviewers: approve a pending superchallenge (it becomes an assignable challenge version at once) or reject it, with the reasons its proposer will read',
        params: z.object({ superchallenge_id: idOf('sch', 'superchallenge') }).strict(),
        body: z
          .object({
            outcome: z.enum(['APPROVED', 'REJECTED']),
            reasons: z.string().trim().min(1).max(8_000),
          })
          .strict(),
      },
    },
    async (req) => ctx.arenaSuperchallenges.decide(ownerOf(req), req.params.superchallenge_id, req.body),
  );
}
