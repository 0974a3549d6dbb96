import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config/config.ts';
import {
  type AppServices,
  AREAS,
  areasOn,
  describeErrors,
  operationsFor,
  publishedLimits,
} from './domains/catalog.ts';
import { buildDiscovery, SERVER_VERSION, type ToolDoc } from './domains/discovery/index.ts';
import { type Core, gatherExtensions, OperationRunner, startAreas } from './framework/index.ts';
import { type Clock, systemClock } from './kernel/clock.ts';
import { createLogger, loggableError } from './logging.ts';
import { buildOutbound } from './net/outbound.ts';
import { ParserPool } from './parsing/index.ts';
import type { Database } from './storage/database.ts';
import { resolveSecret } from './storage/secret.ts';
import { buildDoorContext } from './transport/door-context.ts';
import { Metrics } from './transport/http/metrics.ts';
import { buildHttpServer } from './transport/http/server.ts';
import { startListeners } from './transport/listeners.ts';
import { MODERN_VERSIONS } from './transport/mcp/modern-request.ts';
import { connectRateLimitStore } from './web/http/rate-limit.ts';

export interface App {
  http: FastifyInstance;
  services: AppServices;
  runner: OperationRunner<AppServices>;
  database: Database;
  /** The ports of the areas' own listeners, by name: `smtp` while mail's receiver runs (CAIRN_SMTP_PORT). */
  ports: Readonly<Record<string, number>>;
}

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
}

/**
 * Composition root: config → core → areas → transports. No logic lives here; the areas are
 * listed in the catalogue (domains/catalog.ts), so adding one does not change this file.
 */
export async function createApp(config: Config, database: Database, opts: AppOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(config.logLevel);
  const core: Core = {
    config,
    database,
    clock,
    logger,
    secret: await resolveSecret(config.secret, database, config.dataDir, clock),
    outbound: buildOutbound(config, logger, `Cairn/${SERVER_VERSION} (+${config.baseUrl}/guide)`),
    parser: new ParserPool({ maxJobs: config.parserJobs, maxWaiting: config.parserQueue }),
    limits: publishedLimits(config),
    extensions: gatherExtensions(AREAS, areasOn(config)),
  };
  const { services, workers, feeds, skillCatalog } = await startAreas<AppServices>(AREAS, core);

  const metrics = new Metrics(database);
  const runner = new OperationRunner(operationsFor(config), database, clock, services, {
    onInternalError: (err, requestId, operation) =>
      logger.error({ err: loggableError(err), requestId, operation }, 'operation failed'),
    onUnavailable: (err, requestId, operation) =>
      logger.warn({ err: loggableError(err), requestId, operation }, 'database unavailable; answered 503'),
    onFinished: (operation, outcome, seconds) => metrics.observeTool(operation, outcome, seconds),
    checkOutputs: config.checkOutputs,
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
  // The stateless revision first (served per request), then those negotiated by initialize.
  const protocols = [...MODERN_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];
  const discovery = buildDiscovery(
    config.baseUrl,
    methods,
    tools,
    protocols,
    describeErrors(),
    config.oauthChecksFile,
  );
  const redis = await connectRateLimitStore(config.redisUrl, logger);
  const doors = buildDoorContext({ services, config, secret: core.secret, clock, redis });

  const http = await buildHttpServer({
    config,
    logger,
    database,
    clock,
    secret: core.secret,
    limits: core.limits,
    services,
    runner,
    discovery,
    metrics,
    redis,
    bodies: core.parser,
    doors,
    feeds,
    skillCatalog,
  });
  // The areas' own listeners (the SMTP receiver), beside the HTTP server; closed with it.
  const listening = await startListeners(doors, logger);
  for (const worker of workers) worker.start();
  // Before the server waits for in-flight requests: waiting calls answer now.
  http.addHook('preClose', async () => {
    await Promise.all(workers.map((worker) => worker.drain?.()));
  });
  http.addHook('onClose', async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await listening.close();
    await core.parser.close();
    await redis?.quit().catch(() => redis.disconnect());
  });
  return { http, services, runner, database, ports: listening.ports };
}
