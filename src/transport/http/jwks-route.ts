import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { ArenaScores } from '../../domains/arena/index.ts';
import { allowAnyOrigin } from '../shared/cors.ts';
import { registerRateLimit } from '../shared/rate-limit.ts';

export interface JwksDeps {
  scores: Pick<ArenaScores, 'jwks'>;
  ratePerMinute: number;
  redis: Redis | null;
}

const JWKS_PATH = '/.well-known/jwks.json';

/**
 * `GET /.well-known/jwks.json`: the public keys that sign arena scores, ACTIVE and RETIRED (a
 * retired key stays, so the scores it signed still verify). No token; any origin, so a verifier
 * in a browser can fetch it. Cached for five minutes: after a rotation, a verifier that meets an
 * unknown kid should fetch the set again.
 */
export async function jwksRoute(app: FastifyInstance, deps: JwksDeps): Promise<void> {
  await registerRateLimit(app, {
    perMinute: deps.ratePerMinute,
    name: 'public',
    redis: deps.redis,
    who: 'from this address',
  });
  allowAnyOrigin(app, [JWKS_PATH], { methods: ['GET'] });
  app.get(
    JWKS_PATH,
    { schema: { tags: ['public'], summary: 'The public keys that sign arena scores (JWKS, RFC 7517)' } },
    async (_req, reply) =>
      reply
        .header('cache-control', 'public, max-age=300')
        .type('application/json; charset=utf-8')
        .send(await deps.scores.jwks()),
  );
}
