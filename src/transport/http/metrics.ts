import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../../storage/database.ts';
import { sendError } from '../../web/http/error-handler.ts';

/** Prometheus metrics of one server process: HTTP by route, tools by name, database and pool health. */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpDuration = new Histogram({
    name: 'cairn_http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly toolDuration = new Histogram({
    name: 'cairn_tool_call_duration_seconds',
    help: 'MCP tool call latency by tool and outcome (ok or the error code).',
    labelNames: ['tool', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor(database: Database) {
    collectDefaultMetrics({ register: this.registry, prefix: 'cairn_' });
    new Gauge({
      name: 'cairn_database_up',
      help: '1 when the database answers a trivial query.',
      labelNames: ['kind'],
      registers: [this.registry],
      async collect() {
        this.set({ kind: database.kind }, (await database.healthy()) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'cairn_database_pool_connections',
      help: 'PostgreSQL pool connections by state (total, idle, waiting); absent on the embedded database.',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const stats = database.poolStats();
        if (!stats) return;
        for (const [state, value] of Object.entries(stats)) this.set({ state }, value);
      },
    });
    new Gauge({
      name: 'cairn_database_listener_up',
      help: "1 while this process's LISTEN connection for the channel listens; 0 while it reconnects (wake-ups then wait for the periodic re-check).",
      labelNames: ['channel'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const l of database.listeners()) this.set({ channel: l.channel }, l.up ? 1 : 0);
      },
    });
  }

  observeHttp(method: string, route: string, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, seconds);
  }

  observeTool(tool: string, outcome: string, seconds: number): void {
    this.toolDuration.observe({ tool, outcome }, seconds);
  }
}

/**
 * Times every request, and serves `/metrics` only when a token is configured, and then only
 * to that bearer: metrics reveal traffic, which is not for the public.
 */
export function installMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  token: string | undefined,
  baseUrl: string,
) {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? '(unmatched)';
    metrics.observeHttp(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
  });
  if (!token) return;
  const expected = Buffer.from(`Bearer ${token}`);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const given = Buffer.from(request.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return sendError(
        reply,
        baseUrl,
        'UNAUTHENTICATED',
        'Metrics need the configured metrics bearer token.',
      );
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
