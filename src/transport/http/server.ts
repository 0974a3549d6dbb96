import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../../config/config.ts';
import type { AppServices } from '../../domains/catalog.ts';
import { AREAS } from '../../domains/catalog.ts';
import { type Discovery, publicStats, SERVER_VERSION, serverStatus } from '../../domains/discovery/index.ts';
import type { Area, Feed, OperationRunner, SkillCatalog } from '../../framework/index.ts';
import type { Clock } from '../../kernel/clock.ts';
import type { PublishedLimit } from '../../kernel/limits.ts';
import { isQuietRequest } from '../../logging.ts';
import type { Database } from '../../storage/database.ts';
import { installErrorHandling, sendError } from '../../web/http/error-handler.ts';
import { refuseIllFormedInput } from '../../web/http/ill-formed.ts';
import { installJsonBodyParser } from '../../web/http/json-body.ts';
import type { BodyDecoder } from '../../web/http/large-body.ts';
import { BODY_LIMITS } from '../../web/http/limits.ts';
import { openApiTransform } from '../../web/http/openapi.ts';
import { consoleRoutes } from '../console/routes.ts';
import type { DoorContextOfAll } from '../door-context.ts';
import { type McpEndpointDeps, mcpRoutes } from '../mcp/endpoint.ts';
import { answerClientError } from './client-errors.ts';
import { Connections } from './connections.ts';
import { exampleRoutes } from './examples-routes.ts';
import { installMetrics, type Metrics } from './metrics.ts';
import { type PublicDeps, publicRoutes } from './public-routes.ts';
import { countStatementsPerRequest } from './statement-header.ts';

export interface HttpDeps {
  config: Config;
  logger: Logger;
  database: Database;
  clock: Clock;
  secret: string;
  limits: PublishedLimit[];
  services: AppServices;
  runner: OperationRunner<AppServices>;
  discovery: Discovery;
  metrics: Metrics;
  /** Shared rate-limit counters; null counts per process. */
  redis: Redis | null;
  /** Reads large request bodies off the main thread (the parser pool). */
  bodies: BodyDecoder;
  /** What every area's doors are handed (door-context.ts). */
  doors: DoorContextOfAll;
  /** What idle agents can subscribe to over MCP (framework/feed.ts). */
  feeds: Feed[];
  /** The skills served through MCP's Skills extension (framework/skill-catalog.ts), if any. */
  skillCatalog: SkillCatalog | null;
}

/** An incoming x-request-id is kept when it is a plain token, so traces join up across proxies. */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Builds the Fastify app: thin adapters only; every decision is made by the domain. */
export async function buildHttpServer(deps: HttpDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMITS.requestBodyBytes,
    // A whole request (headers and body) must arrive within the limit: a body trickling in, or
    // never coming, would otherwise hold its connection forever (Fastify's default is no limit).
    // Node applies it only when given to the server's constructor (hence `http`), and checks
    // every second, so the limit is kept to about a second.
    requestTimeout: config.requestTimeoutSeconds * 1000,
    http: { requestTimeout: config.requestTimeoutSeconds * 1000, connectionsCheckingInterval: 1_000 },
    clientErrorHandler: answerClientError,
    // Requests that arrive while the server closes are refused in the envelope (below).
    return503OnClosing: false,
    // Probes, metrics and static files would fill the log at info; they are logged at debug.
    logController: new LogController({ disableRequestLogging: (req) => isQuietRequest(req.url) }),
    requestIdHeader: 'x-request-id',
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
    },
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (config.trustProxy as number)
        : config.trustProxy,
  });
  // Shutting down (SIGTERM in a rolling restart): a request that still arrives on an open
  // connection is refused cleanly, retryable, and its connection closed, so the client goes to
  // another replica; requests already in flight finish.
  let closing = false;
  const connections = new Connections(app.server, config.writeTimeoutSeconds * 1000);
  app.addHook('preClose', async () => {
    closing = true;
    // Connections with no request in flight (idle, half-sent, never used) end now, not at the
    // force timer; the others as soon as their answer is written (connections.ts).
    connections.closeIdle();
  });
  app.addHook('onClose', async () => connections.stop());
  app.addHook('onRequest', async (_req, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    return sendError(
      reply,
      config.baseUrl,
      'SERVICE_UNAVAILABLE',
      'This server is shutting down; send the request again.',
      {
        retry_after_seconds: 1,
      },
    );
  });
  if (config.debugDbStatements) countStatementsPerRequest(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onResponse', async (request, reply) => {
    if (isQuietRequest(request.url)) {
      request.log.debug(
        { path: request.url.split('?')[0], statusCode: reply.statusCode },
        'request completed',
      );
    }
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Answered before its body arrived (a refusal at the door): the rest of the body is not read
    // on this connection, so a slow sender cannot keep it open by trickling it in.
    if (!request.raw.complete) reply.header('connection', 'close');
  });

  installJsonBodyParser(app, BODY_LIMITS.requestBodyBytes);
  await app.register(helmet, { global: true });
  // OAuth clients and console forms post application/x-www-form-urlencoded.
  await app.register(formbody, { bodyLimit: BODY_LIMITS.requestBodyBytes });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cairn',
        version: SERVER_VERSION,
        description: 'Shared research workspace for AI agents. MCP at /mcp; public documents need no token.',
      },
      servers: [{ url: config.baseUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: openApiTransform,
  });
  installErrorHandling(app, config.baseUrl);
  refuseIllFormedInput(app);
  installMetrics(app, deps.metrics, config.metricsToken, config.baseUrl);

  // Each group of routes gets the services it uses, and nothing else.
  const { services, discovery, limits, redis, clock, database, doors } = deps;
  const { baseUrl, publicRateLimitPerMinute, mcpRateLimitPerMinute } = config;
  const publicDeps: PublicDeps = {
    discovery,
    limits,
    ratePerMinute: publicRateLimitPerMinute,
    redis,
    status: serverStatus(database, clock, clock.now()),
    stats: publicStats(services, clock, discovery.tools.length),
    doors,
  };
  const mcpDeps: McpEndpointDeps = {
    runner: deps.runner,
    discovery,
    limits,
    feeds: deps.feeds,
    skills: deps.skillCatalog,
    identity: services.identity,
    sessions: services.sessions,
    database,
    baseUrl,
    ratePerMinute: mcpRateLimitPerMinute,
    redis,
    noStreamClients: config.noStreamClients,
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
    directCalls: config.mcpDirectCalls,
  };
  await app.register(async (scope) => publicRoutes(scope, publicDeps));
  await app.register(exampleRoutes);
  await app.register(async (scope) => mcpRoutes(scope, mcpDeps));
  await app.register(async (scope) => consoleRoutes(scope, doors, deps.bodies));
  for (const area of AREAS as ReadonlyArray<Area>) {
    const publicRoutes = area.doors?.publicRoutes;
    if (publicRoutes) await app.register(async (scope) => publicRoutes(scope, doors));
  }
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
