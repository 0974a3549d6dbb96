import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ConsoleContext } from './context.ts';

/**
 * The operator's Arena reviewers in the owner API (session or owner token; docs/arena.md,
 * "Reviewers"): who reviews, and naming an owner account a reviewer or no longer. Another owner
 * gets 403 OPERATOR_REQUIRED.
 */
export async function arenaReviewerApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/v1/arena/reviewers',
    {
      schema: {
        tags: ['arena'],
        summary:
          'For the operator: the owner accounts that decide Arena reports, appeals and superchallenges',
      },
    },
    async (req) => ctx.operators.arenaReviewers(ownerOf(req)),
  );
  r.post(
    '/v1/arena/reviewers',
    {
      schema: {
        tags: ['arena'],
        summary:
          'For the operator: name an owner account (by sign-in email) an Arena reviewer, or no longer (audited on that account)',
        body: z
          .object({
            email: z.string().trim().email().max(254),
            enabled: z.boolean(),
          })
          .strict(),
      },
    },
    async (req) => ctx.operators.setArenaReviewer(ownerOf(req), req.body.email, req.body.enabled),
  );
}
