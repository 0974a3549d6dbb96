import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { DomainError } from '../../kernel/errors.ts';

export interface RateLimitSpec {
  /** Requests per minute per key. */
  perMinute: number;
  /** Which counters these are (a Redis key prefix), e.g. `public`. */
  name: string;
  /** Shared counters for every replica (CAIRN_REDIS_URL); this process's memory otherwise. */
  redis: Redis | null;
  /** What is counted; the client address by default. */
  keyGenerator?: RateLimitPluginOptions['keyGenerator'];
  hook?: RateLimitPluginOptions['hook'];
  /** Who is limited, for the refusal's wording. */
  who: string;
}

/** Registers one rate limit on a route scope, refusing with RATE_LIMITED and a retry hint. */
export async function registerRateLimit(app: FastifyInstance, spec: RateLimitSpec): Promise<void> {
  await app.register(rateLimit, {
    max: spec.perMinute,
    timeWindow: 60_000,
    ...(spec.hook ? { hook: spec.hook } : {}),
    ...(spec.keyGenerator ? { keyGenerator: spec.keyGenerator } : {}),
    // With Redis down, serve unthrottled rather than refuse everyone; sign-in throttling is in the database.
    ...(spec.redis ? { redis: spec.redis, nameSpace: `cairn-rl-${spec.name}-`, skipOnError: true } : {}),
    errorResponseBuilder: (_req, ctx) => {
      const seconds = Math.ceil(ctx.ttl / 1000);
      return Object.assign(
        new DomainError('RATE_LIMITED', `Too many requests ${spec.who}; try again in ${seconds} s.`, {
          retry_after_seconds: seconds,
        }),
        { statusCode: 429 },
      );
    },
  });
}
