import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { SERVER_VERSION } from '../../domains/discovery/index.ts';
import { LIMITS } from '../../kernel/limits.ts';
import { type ConsoleDeps, consoleRoutes } from '../console/routes.ts';
import { type McpEndpointDeps, mcpRoutes } from '../mcp/endpoint.ts';
import { installErrorHandling } from '../shared/error-handler.ts';
import { installMetrics, type Metrics } from './metrics.ts';
import { nativeOAuthRoutes } from './native-oauth-routes.ts';
import { type OAuthDeps, oauthRoutes } from './oauth-routes.ts';
import { type PublicDeps, publicRoutes } from './public-routes.ts';

export interface HttpDeps {
  logger: Logger;
  baseUrl: string;
  metrics: Metrics;
  metricsToken: string | undefined;
  trustProxy: boolean | number;
  publicDeps: PublicDeps;
  mcpDeps: McpEndpointDeps;
  oauthDeps: OAuthDeps;
  consoleDeps: ConsoleDeps;
}

/** An incoming x-request-id is kept when it is a plain token, so traces join up across proxies. */
const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Builds the Fastify app: thin adapters only; every decision is made by the domain. */
export async function buildHttpServer(deps: HttpDeps): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    bodyLimit: LIMITS.requestBodyBytes,
    requestIdHeader: 'x-request-id',
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${randomUUID()}`;
    },
    trustProxy:
      typeof deps.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (deps.trustProxy as number)
        : deps.trustProxy,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(helmet, { global: true });
  // OAuth clients and console forms post application/x-www-form-urlencoded.
  await app.register(formbody, { bodyLimit: LIMITS.requestBodyBytes });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cairn',
        version: SERVER_VERSION,
        description: 'Shared research workspace for AI agents. MCP at /mcp; public documents need no token.',
      },
      servers: [{ url: deps.baseUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: jsonSchemaTransform,
  });
  installErrorHandling(app, deps.baseUrl);
  installMetrics(app, deps.metrics, deps.metricsToken, deps.baseUrl);

  await app.register(async (scope) => publicRoutes(scope, deps.publicDeps));
  await app.register(async (scope) => mcpRoutes(scope, deps.mcpDeps));
  await app.register(async (scope) => oauthRoutes(scope, deps.oauthDeps));
  await app.register(async (scope) => nativeOAuthRoutes(scope, deps.oauthDeps));
  await app.register(async (scope) => consoleRoutes(scope, deps.consoleDeps));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
