import type { Config } from '../../config/config.ts';
import { FEED_LIMITS, FRAMEWORK_LIMITS } from '../../framework/index.ts';
import type { PublishedLimit } from '../../kernel/limits.ts';
import { BODY_LIMITS } from '../../web/http/limits.ts';

/**
 * What `/v1/public/limits` publishes of the server itself, which no other area owns: the request
 * body (web/http/limits.ts), the runner's bounds on a tool call (framework/limits.ts) and this
 * deployment's rate limits (its configuration).
 */
export function publishedServerLimits(config: Config): PublishedLimit[] {
  const { publicRateLimitPerMinute, mcpRateLimitPerMinute } = config;
  const B = BODY_LIMITS;
  const F = FRAMEWORK_LIMITS;
  const FEED = FEED_LIMITS;
  return [
    {
      area: 'Request body',
      limit: `JSON bodies up to 1 MiB; file uploads (research imports, skill files and zips) up to their own limits, read off the event loop, at most ${B.largeBodies.perPrincipal} at once per owner and ${B.largeBodies.perProcess} per server process`,
      values: {
        max_bytes: B.requestBodyBytes,
        large_uploads_per_owner: B.largeBodies.perPrincipal,
        large_uploads_per_process: B.largeBodies.perProcess,
      },
    },
    {
      area: 'Tool arguments',
      limit: `nested at most ${F.argumentsDepth} levels deep`,
      values: { max_depth: F.argumentsDepth },
    },
    {
      area: 'idempotency_key',
      limit: '8-200 characters; the same key with the same arguments returns the first result',
      values: { min_chars: F.idempotencyKey.minChars, max_chars: F.idempotencyKey.maxChars },
    },
    {
      area: 'Public (no token) routes',
      limit: `${publicRateLimitPerMinute} requests per minute per client address`,
      values: { per_minute: publicRateLimitPerMinute },
    },
    {
      area: 'MCP requests',
      limit: `${mcpRateLimitPerMinute} requests per minute per identity`,
      values: { per_minute: mcpRateLimitPerMinute },
    },
    {
      area: 'MCP subscriptions',
      limit: `a subscriptions/listen follows at most ${FEED.urisPerListen} resources, and an identity holds at most ${FEED.listensPerIdentity} listens open (a new one ends the oldest); a 2025 session follows at most ${FEED.subscriptionsPerSession} resources`,
      values: {
        uris_per_listen: FEED.urisPerListen,
        listens_per_identity: FEED.listensPerIdentity,
        subscriptions_per_session: FEED.subscriptionsPerSession,
      },
    },
  ];
}
