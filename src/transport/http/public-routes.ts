import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { AREAS } from '../../domains/catalog.ts';
import { DEFAULT_RUNTIME, type Discovery, RUNTIMES } from '../../domains/discovery/index.ts';
import type { Area } from '../../framework/index.ts';
import type { PublishedLimit } from '../../kernel/limits.ts';
import { OAUTH_ERROR_REFERENCE } from '../../kernel/oauth-error.ts';
import { RETRY_AFTER_SECONDS } from '../../storage/unavailable.ts';
import { allowAnyOrigin } from '../../web/http/cors.ts';
import { registerRateLimit } from '../../web/http/rate-limit.ts';
import type { DoorContextOfAll } from '../door-context.ts';

export interface PublicDeps {
  discovery: Discovery;
  limits: PublishedLimit[];
  ratePerMinute: number;
  redis: Redis | null;
  status(): Promise<{
    databaseKind: string;
    databaseHealthy: boolean;
    listeners: Record<string, 'ok' | 'down'>;
    uptimeSeconds: number;
    startedAt: string;
  }>;
  stats(): Promise<Record<string, unknown>>;
  /** What the areas' public lists (Doors.publicApi) are handed. */
  doors: DoorContextOfAll;
}

const tags = ['public'];

/** SPEC "Public (no token)": documents and status, rate limited per client address. */
export async function publicRoutes(app: FastifyInstance, deps: PublicDeps): Promise<void> {
  await registerRateLimit(app, {
    perMinute: deps.ratePerMinute,
    name: 'public',
    redis: deps.redis,
    who: 'from this address',
  });
  allowAnyOrigin(
    app,
    [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/mcp.json',
    ],
    // The MCP SDK sends MCP-Protocol-Version on discovery requests too.
    { methods: ['GET'], headers: ['content-type', 'mcp-protocol-version'] },
  );
  const r = app.withTypeProvider<ZodTypeProvider>();

  // Liveness: the process answers; a lost database is no reason to restart it (it reconnects by
  // itself), so this stays 200 and only says what it sees.
  r.get('/health', { schema: { tags, summary: 'Liveness (the process answers)' } }, async () => {
    const s = await deps.status();
    return { status: 'ok', database: s.databaseHealthy ? 'ok' : 'unreachable' };
  });

  // Readiness: whether to send this replica traffic; 503 with Retry-After while the database is away.
  // A replica whose LISTEN connection is down still serves every call (its waits wake on their
  // periodic re-check instead, seconds late), so it stays 200 and says "degraded": taking it out
  // of rotation would turn a slow wake-up into no service when every replica is in that state.
  r.get(
    '/health/ready',
    { schema: { tags, summary: 'Readiness (the database answers; degraded while a LISTEN is down)' } },
    async (_req, reply) => {
      const s = await deps.status();
      if (!s.databaseHealthy) reply.code(503).header('retry-after', String(RETRY_AFTER_SECONDS));
      const degraded = Object.values(s.listeners).includes('down');
      return {
        status: !s.databaseHealthy ? 'unavailable' : degraded ? 'degraded' : 'ready',
        database: s.databaseHealthy ? 'ok' : 'unreachable',
        listeners: s.listeners,
      };
    },
  );

  r.get('/v1/status', { schema: { tags, summary: 'Version, database and uptime' } }, async (_req, reply) => {
    const s = await deps.status();
    return reply.code(s.databaseHealthy ? 200 : 503).send({
      service: 'cairn',
      version: deps.discovery.serverCard.version,
      database: { kind: s.databaseKind, healthy: s.databaseHealthy, listeners: s.listeners },
      started_at: s.startedAt,
      uptime_seconds: s.uptimeSeconds,
    });
  });

  r.get('/v1/public/limits', { schema: { tags, summary: 'Every enforced limit' } }, async () => ({
    limits: deps.limits,
  }));

  r.get('/v1/public/errors', { schema: { tags, summary: 'The error code reference' } }, async () => ({
    envelope:
      '{status: "ERROR", error: {code, retryable, message, other_readers, details, next_action, allowed_alternatives?}}',
    validation_shape: '422 {detail: [{loc, msg, type}]}',
    errors: deps.discovery.errors,
    // The OAuth endpoints answer {error, error_description} (RFC 6749 §5.2), not the envelope.
    oauth_errors: Object.entries(OAUTH_ERROR_REFERENCE).map(([code, e]) => ({ code, ...e })),
  }));

  r.get(
    '/v1/public/tools',
    {
      schema: {
        tags,
        summary: 'The MCP tool reference',
        querystring: z.object({ format: z.enum(['text', 'json']).default('text') }).strict(),
      },
    },
    async (req, reply) => {
      if (req.query.format === 'json') {
        return {
          tools: deps.discovery.tools,
          catalogue_fingerprint: deps.discovery.updates.catalogue_fingerprint,
        };
      }
      return reply.type('text/plain; charset=utf-8').send(deps.discovery.toolsText);
    },
  );

  r.get(
    '/v1/public/demo',
    { schema: { tags, summary: 'The self-contained demo' } },
    async () => deps.discovery.demo,
  );

  r.get(
    '/v1/public/security-research-case',
    { schema: { tags, summary: 'A worked example: import, locate, finding, review, STIX export' } },
    async () => deps.discovery.researchCases.securityResearch,
  );

  r.get(
    '/v1/public/research-case',
    { schema: { tags, summary: 'A worked example: read, task, verified completion' } },
    async () => deps.discovery.researchCases.research,
  );

  // The areas' public lists (boards, reports, intents), under this scope's one rate limit.
  for (const area of AREAS as ReadonlyArray<Area>) area.doors?.publicApi?.(app, deps.doors);

  r.get(
    '/v1/public/oauth-client-checks',
    { schema: { tags, summary: 'Dated results of the OAuth regression suite, by client library and flow' } },
    async () => deps.discovery.oauthClientChecks(),
  );

  r.get('/v1/public/terms', { schema: { tags, summary: 'Terms of use' } }, async () => deps.discovery.terms);

  r.get('/v1/public/stats', { schema: { tags, summary: 'Live counts' } }, async () => deps.stats());

  // Markdown for agents; HTML for a browser that asks for it first.
  r.get('/guide', { schema: { tags, summary: 'How an agent connects' } }, async (req, reply) => {
    reply.header('vary', 'Accept');
    return prefersHtml(req.headers.accept)
      ? reply.type('text/html; charset=utf-8').send(deps.discovery.guideHtml)
      : reply.type('text/markdown; charset=utf-8').send(deps.discovery.guide);
  });

  r.get(
    '/v1/public/connection',
    {
      schema: {
        tags,
        summary: 'A ready client configuration',
        querystring: z
          .object({
            runtime: z.enum(RUNTIMES).default(DEFAULT_RUNTIME),
            deny_other_web: z.enum(['true', 'false']).default('false'),
          })
          .strict(),
      },
    },
    async (req) => deps.discovery.connections[`${req.query.runtime}:${req.query.deny_other_web === 'true'}`],
  );

  r.get('/llms.txt', { schema: { tags, summary: 'llms.txt' } }, async (_req, reply) =>
    reply.type('text/plain; charset=utf-8').send(deps.discovery.llmsTxt),
  );

  r.get(
    '/.well-known/mcp.json',
    { schema: { tags, summary: 'MCP server card' } },
    async () => deps.discovery.serverCard,
  );

  // RFC 9728 §3.1: the metadata of resource {base}/mcp lives at the path-inserted address. The
  // bare address would describe the server root, which is no protected resource, so it is a 404
  // (§3.3: a client must refuse metadata whose resource differs from the one it asked about).
  r.get(
    '/.well-known/oauth-protected-resource/mcp',
    { schema: { tags, summary: 'OAuth protected resource metadata of /mcp (RFC 9728)' } },
    async () => deps.discovery.protectedResource,
  );
  r.get(
    '/.well-known/oauth-authorization-server',
    { schema: { tags, summary: 'OAuth authorization server metadata (RFC 8414)' } },
    async () => deps.discovery.authorizationServer,
  );

  const updatesEtag = `"${deps.discovery.updates.revision}"`;
  r.get(
    '/updates.json',
    { schema: { tags, summary: 'Curated changes feed (ETag, If-None-Match)' } },
    async (req, reply) => {
      reply.header('etag', updatesEtag).header('cache-control', 'no-cache');
      if (matchesEtag(req.headers['if-none-match'], updatesEtag)) return reply.code(304).send();
      return deps.discovery.updates;
    },
  );
}

/** RFC 9110 If-None-Match: a list of entity tags, or `*`; weak comparison. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** Whether an Accept header puts text/html before Markdown and plain text (a browser does). */
function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const first = accept.split(',')[0]?.trim().toLowerCase() ?? '';
  return first.startsWith('text/html') || first.startsWith('application/xhtml+xml');
}
