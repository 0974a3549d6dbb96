import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { allowAnyOrigin } from '../../../web/http/cors.ts';
import { registerRateLimit } from '../../../web/http/rate-limit.ts';
import type { ArenaRuns } from '../runs/run-service.ts';
import type { ArenaScores } from '../scores/score-service.ts';

export interface ArenaPublicDeps {
  scores: Pick<ArenaScores, 'jwks'>;
  runs: Pick<ArenaRuns, 'results'>;
  ratePerMinute: number;
  redis: Redis | null;
}

const JWKS_PATH = '/.well-known/jwks.json';
const RESULTS_PATH = '/v1/public/arena/results';

/**
 * The Arena's public doors. `GET /v1/public/arena/results`: published results with their signed
 * scores, publications and reviews (domains/arena/runs/results.ts). `GET /.well-known/jwks.json`:
 * the public keys that sign arena scores, ACTIVE and RETIRED (a retired key stays, so the scores
 * it signed still verify). No token; any origin, so a verifier
 * in a browser can fetch it. Cached for five minutes: after a rotation, a verifier that meets an
 * unknown kid should fetch the set again.
 */
export async function arenaPublicRoutes(app: FastifyInstance, deps: ArenaPublicDeps): Promise<void> {
  await registerRateLimit(app, {
    perMinute: deps.ratePerMinute,
    name: 'public',
    redis: deps.redis,
    who: 'from this address',
  });
  allowAnyOrigin(app, [JWKS_PATH, RESULTS_PATH], { methods: ['GET'] });
  app.get(
    JWKS_PATH,
    { schema: { tags: ['public'], summary: 'The public keys that sign arena scores (JWKS, RFC 7517)' } },
    async (_req, reply) =>
      reply
        .header('cache-control', 'public, max-age=300')
        .type('application/json; charset=utf-8')
        .send(await deps.scores.jwks()),
  );
  app.withTypeProvider<ZodTypeProvider>().get(
    RESULTS_PATH,
    {
      schema: {
        tags: ['public'],
        summary:
          'Published Arena results, newest first, each with its signed score and its publications with their reviews (the identity shown only as its owner allows; reviewers never)',
        querystring: z
          .object({
            challenge_id: z.string().min(1).max(64).optional(),
            limit: z.coerce.number().int().min(1).max(100).default(25),
            cursor: z.string().min(1).max(512).optional(),
          })
          .strict(),
      },
    },
    async (req) =>
      deps.runs.results({
        challengeId: req.query.challenge_id,
        limit: req.query.limit,
        cursor: req.query.cursor,
      }),
  );
}
