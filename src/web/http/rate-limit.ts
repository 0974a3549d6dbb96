import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
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

/**
 * The shared counters for rate limits, when CAIRN_REDIS_URL is set. Settings from the rate-limit
 * plugin's advice: fail fast, so an unreachable Redis only skips limits. Connected before
 * serving, so the first requests are counted too; unreachable, it keeps retrying.
 */
export async function connectRateLimitStore(url: string | undefined, logger: Logger): Promise<Redis | null> {
  if (!url) return null;
  const redis = new Redis(url, {
    connectTimeout: 500,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: true,
  });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'Redis for rate limits is unreachable'));
  await redis.connect().catch(() => {});
  return redis;
}
