import { readFileSync } from 'node:fs';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pino, { type DestinationStream, type Logger } from 'pino';
import { type Config, ConfigError } from './config/config.ts';
import {
  CampaignOwnerService,
  campaignCoverage,
  LeaseSweeper,
  LedgerFeed,
  LedgerWaiter,
  standingColumn,
} from './domains/campaigns/index.ts';
import { type AppServices, OPERATIONS } from './domains/catalog.ts';
import { buildDiscovery, SERVER_VERSION, type ToolDoc } from './domains/discovery/index.ts';
import {
  DeviceService,
  DomainVerifier,
  Housekeeper,
  IdentityService,
  ManagementService,
  OAuthClientService,
  OAuthConsentService,
  OwnerService,
  SessionService,
  sweepIdentity,
  TokenService,
} from './domains/identity/index.ts';
import { OperationRunner } from './domains/operations/index.ts';
import {
  BraveProvider,
  ReadingService,
  type SearchProvider,
  SearxngProvider,
} from './domains/reading/index.ts';
import { type Clock, systemClock } from './kernel/clock.ts';
import { describeLimits, LIMITS } from './kernel/limits.ts';
import { decodeBody } from './net/body.ts';
import { GuardedFetcher } from './net/guarded-fetch.ts';
import { OutboundResolver } from './net/resolver.ts';
import { ParserPool } from './parsing/index.ts';
import type { Database } from './storage/database.ts';
import { resolveSecret } from './storage/secret.ts';
import { Metrics } from './transport/http/metrics.ts';
import { buildHttpServer } from './transport/http/server.ts';

/** Secrets never reach the log, whatever object they ride in. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.headers.authorization',
  '*.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.client_secret',
  '*.project_key',
  '*.device_code',
];

/**
 * The process logger. Requests are logged by path only: a query string can carry a credential
 * a careless client put there, and a log line must never hold one.
 */
export function createLogger(level: Config['logLevel'], destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: { method?: string; url?: string; id?: string; ip?: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url?.split('?')[0],
        remoteAddress: req.ip,
      }),
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

const MAX_LOGGED_CHARS = 2_000;

/**
 * What the log keeps of an unexpected error. A failed query's own message and stack repeat every
 * parameter (a page's text, a caller's argument), so for an error with a cause only the cause is
 * kept, and every text is cut short.
 */
export function loggableError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err).slice(0, MAX_LOGGED_CHARS) };
  const inner = err.cause instanceof Error ? err.cause : null;
  const shown = inner ?? err;
  return {
    type: err.name,
    ...(inner ? { cause_type: inner.name } : {}),
    message: shown.message.slice(0, MAX_LOGGED_CHARS),
    stack: shown.stack?.slice(0, MAX_LOGGED_CHARS),
  };
}

export interface App {
  http: FastifyInstance;
  services: AppServices & {
    sessions: SessionService;
    tokens: TokenService;
    device: DeviceService;
    management: ManagementService;
    owners: OwnerService;
    oauth: OAuthConsentService;
  };
  runner: OperationRunner<AppServices>;
  database: Database;
}

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
}

function readCaFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([
      `CAIRN_FETCH_CA_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code})`,
    ]);
  }
}

/** The one way out to the internet, configured once for the whole process. */
function buildFetcher(config: Config, logger: Logger) {
  if (config.fetch.allow.length > 0) {
    logger.warn(
      { allow: config.fetch.allow },
      'CAIRN_FETCH_ALLOW lets outbound reads reach these private hosts',
    );
  }
  const resolver = new OutboundResolver(config.fetch.dns);
  const fetcher = new GuardedFetcher(resolver, {
    ports: new Set(config.fetch.ports),
    allow: new Set(config.fetch.allow),
    timeoutMs: config.fetch.timeoutSeconds * 1000,
    maxBytes: LIMITS.read.responseBytes,
    maxRedirects: LIMITS.read.redirects,
    userAgent: `Cairn/${SERVER_VERSION} (+${config.baseUrl}/guide)`,
    ...(config.fetch.caFile ? { extraCa: readCaFile(config.fetch.caFile) } : {}),
  });
  return { resolver, fetcher };
}

/** The configured web_search provider, if any: SearXNG first, then Brave. */
function buildSearch(config: Config, fetcher: GuardedFetcher): SearchProvider | null {
  if (config.search.searxngUrl) return new SearxngProvider(fetcher, config.search.searxngUrl);
  if (config.search.braveApiKey) {
    return new BraveProvider(fetcher, config.search.braveApiKey, config.search.braveUrl);
  }
  return null;
}

/** Composition root: config → storage → services → transports. No logic lives here. */
export async function createApp(config: Config, database: Database, opts: AppOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(config.logLevel);
  const startedAt = clock.now();
  const secret = await resolveSecret(config.secret, database, config.dataDir, clock);

  const limits = describeLimits(config.publicRateLimitPerMinute, config.mcpRateLimitPerMinute);
  const identity = new IdentityService(database, clock, standingColumn);
  const sessions = new SessionService(database, clock);
  const tokens = new TokenService(database, clock, secret);
  const device = new DeviceService(database, clock, tokens, config.baseUrl);
  const management = new ManagementService(database, clock);
  const owners = new OwnerService(database, clock, { openSignup: config.openSignup });
  const oauthClients = new OAuthClientService(database, clock);
  const oauth = new OAuthConsentService(database, clock, tokens, config.baseUrl);
  const fetcher = buildFetcher(config, logger);
  const domains = new DomainVerifier(database, clock, secret, fetcher.resolver, fetcher.fetcher);
  const parser = new ParserPool({ maxJobs: config.parserJobs, maxWaiting: config.parserQueue });
  const reading = new ReadingService(
    database,
    clock,
    fetcher.fetcher,
    parser,
    campaignCoverage,
    (raw, encoding) => decodeBody(raw, encoding ?? undefined, LIMITS.read.responseBytes),
    { maxConcurrentReads: config.readConcurrency },
  );
  const search = buildSearch(config, fetcher.fetcher);
  if (search) logger.info({ provider: search.name }, 'web_search provider configured');
  const ledger = new LedgerWaiter(database);
  const campaignDeps = { database, clock, secret, parser, ledger, feed: new LedgerFeed(database) };
  const campaigns = new CampaignOwnerService(database, clock);
  const services: AppServices = { identity, domains, limits, reading, search, campaignDeps };
  const metrics = new Metrics(database);
  // Settings from the rate-limit plugin's advice: fail fast, so an unreachable Redis only skips limits.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        connectTimeout: 500,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        lazyConnect: true,
      })
    : null;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'Redis for rate limits is unreachable'));
  // Connected before serving, so the first requests are counted too; unreachable, it keeps retrying.
  await redis?.connect().catch(() => {});
  const runner = new OperationRunner(OPERATIONS, database, clock, services, {
    onInternalError: (err, requestId, operation) =>
      logger.error({ err: loggableError(err), requestId, operation }, 'operation failed'),
    onFinished: (operation, outcome, seconds) => metrics.observeTool(operation, outcome, seconds),
  });

  const tools: ToolDoc[] = runner.all().map(({ op, jsonSchema }) => ({
    name: op.name,
    group: op.group,
    description: op.description,
    input_schema: jsonSchema,
    mutates: op.mutates,
    visible_when: op.visibleWhen,
  }));
  const methods = { projectKey: true, devicePairing: true, nativeOAuth: true };
  const discovery = buildDiscovery(config.baseUrl, methods, tools, [...SUPPORTED_PROTOCOL_VERSIONS]);

  const http = await buildHttpServer({
    logger,
    baseUrl: config.baseUrl,
    metrics,
    metricsToken: config.metricsToken,
    trustProxy: config.trustProxy,
    publicDeps: {
      discovery,
      limits,
      ratePerMinute: config.publicRateLimitPerMinute,
      redis,
      status: async () => ({
        databaseKind: database.kind === 'pglite' ? 'embedded (PGlite)' : 'PostgreSQL',
        databaseHealthy: await database.healthy(),
        startedAt: startedAt.toISOString(),
        uptimeSeconds: Math.floor((clock.now().getTime() - startedAt.getTime()) / 1000),
      }),
      stats: async () => {
        const now = clock.now();
        const counts = await identity.counts();
        return {
          generated_at: now.toISOString(),
          owners: counts.owners,
          agent_identities: counts.agents,
          active_identities: counts.active,
          mcp_sessions_last_24h: await sessions.countActiveSince(new Date(now.getTime() - 86_400_000)),
          tools_offered: tools.length,
        };
      },
    },
    oauthDeps: {
      device,
      tokens,
      clients: oauthClients,
      consent: oauth,
      baseUrl: config.baseUrl,
      ratePerMinute: config.publicRateLimitPerMinute,
      redis,
    },
    consoleDeps: { owners, management, device, oauth, campaigns, secret, baseUrl: config.baseUrl, clock },
    mcpDeps: {
      runner,
      discovery,
      limits,
      identity,
      sessions,
      database,
      baseUrl: config.baseUrl,
      ratePerMinute: config.mcpRateLimitPerMinute,
      redis,
      noStreamClients: config.noStreamClients,
    },
  });
  // Ends idle sessions and deletes what is over; every replica may run it.
  const housekeeper = new Housekeeper(
    () => sweepIdentity(database.db, clock.now()),
    (result) =>
      result instanceof Error
        ? logger.warn({ err: result }, 'housekeeping failed; it runs again in ten minutes')
        : logger.debug({ result }, 'housekeeping done'),
  );
  housekeeper.start();
  // Puts lease expiries on the ledger for watchers; every replica may run it.
  const leaseSweeper = new LeaseSweeper(database, clock, (result) => {
    if (result instanceof Error) logger.warn({ err: result }, 'lease sweep failed; it runs again soon');
    else if (result.expired_leases > 0) logger.debug({ result }, 'expired leases ended');
  });
  leaseSweeper.start();
  // Before the server waits for in-flight requests: a waiting events_watch answers its heartbeat now.
  http.addHook('preClose', async () => ledger.close());
  http.addHook('onClose', async () => {
    housekeeper.stop();
    leaseSweeper.stop();
    await parser.close();
    await redis?.quit().catch(() => redis.disconnect());
  });
  return {
    http,
    services: { ...services, sessions, tokens, device, management, owners, oauth },
    runner,
    database,
  };
}
