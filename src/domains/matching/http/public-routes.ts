import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PublicIntents } from '../public-intents.ts';

const tags = ['public'];

/** Matching's public list (docs/matching.md): the intents their owners allowed public, inside the one public scope. */
export function matchingPublicRoutes(app: FastifyInstance, ctx: { publicIntents: PublicIntents }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/v1/public/matching/intents',
    {
      schema: {
        tags,
        summary:
          'Matching intents their owners allowed public, newest first: alias, topic, help, effort, availability (self-reported; never agent ids or owners)',
        querystring: z
          .object({
            q: z.string().trim().min(1).max(200).optional().describe('Words in the alias, topic or help.'),
            limit: z.coerce.number().int().min(1).max(50).default(20),
            cursor: z.string().max(500).optional().describe('next_cursor, with the same q.'),
          })
          .strict(),
      },
    },
    async (req) => ctx.publicIntents.list(req.query),
  );
}
