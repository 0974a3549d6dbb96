import type { z } from 'zod';
import { envSchema, type LOG_LEVELS, normalizeOrigin } from './env-schema.ts';
import type { AreaSettings, SettingsFragment } from './settings.ts';

/**
 * Configuration from the environment, validated once at start: the server's own variables
 * (env-schema.ts) and every area's settings fragment (settings.ts), in one pass. Every bad value
 * gets its own message naming the variable, so an operator can fix them all in one go.
 */

export { normalizeOrigin };

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config extends AreaSettings {
  port: number;
  host: string;
  /** Public address agents and owners use; links in documents are built from it. */
  baseUrl: string;
  dataDir: string;
  /** PostgreSQL when set; the embedded PGlite database under dataDir otherwise. */
  databaseUrl: string | undefined;
  /** From CAIRN_SECRET; when absent the server generates and keeps one (see storage/secret). */
  secret: string | undefined;
  logLevel: LogLevel;
  /** auto: readable lines when stdout is a terminal, JSON otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  metricsToken: string | undefined;
  publicRateLimitPerMinute: number;
  /** MCP requests per minute per identity. */
  mcpRateLimitPerMinute: number;
  dbPoolSize: number;
  /** Whether (or through how many hops) X-Forwarded-For is believed: rate limits count per client address. */
  trustProxy: boolean | number;
  /** Outbound reads: extra ports, DNS servers, and hosts allowed despite a private address. */
  fetch: {
    ports: number[];
    dns: string[];
    allow: string[];
    caFile: string | undefined;
    /** Whole-read deadline, redirects included. */
    timeoutSeconds: number;
  };
  /** Shared rate-limit counters for all replicas; each process counts alone when unset. */
  redisUrl: string | undefined;
  /** Parser and OCR jobs run at once per process (SPEC: two per web worker). */
  parserJobs: number;
  /** Jobs that may wait for a parser thread; past them reads get DEGRADED_MODE. */
  parserQueue: number;
  /** Seconds a client has to send a whole request, headers and body (answers are not limited). */
  requestTimeoutSeconds: number;
  /** Seconds an answer may wait in this process's buffers with nothing of it taken by the client. */
  writeTimeoutSeconds: number;
  /** The OAuth regression results to serve; the package's own file when unset. */
  oauthChecksFile: string | undefined;
  /** MCP clients (clientInfo name and version, version * for any) whose GET /mcp is answered 405. */
  noStreamClients: Array<{ name: string; version: string }>;
  /**
   * Whether /mcp answers a single well-formed tools/call itself (the fast path) rather than
   * through the MCP SDK's server and transport; false sends every request through the SDK.
   */
  mcpDirectCalls: boolean;
  /** Development: hold every tool answer to its declared output schema (framework/output.ts). */
  checkOutputs: boolean;
  /** Whether every answer carries `x-cairn-db-statements`: the SQL statements it took (docs/performance.md). */
  debugDbStatements: boolean;
  /**
   * DNS-rebinding protection on /mcp: names the Host header may carry besides the base URL's
   * host (`host` for any port, `host:port` for that port), lower-case.
   */
  allowedHosts: string[];
  /** Browser origins /mcp answers besides the base URL's own, normalized; `*` for any. */
  allowedOrigins: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment with the areas' fragments (the catalogue's `loadAppConfig` passes them
 * all); throws ConfigError listing every bad variable.
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  fragments: ReadonlyArray<SettingsFragment>,
): Config {
  // Empty strings count as unset: `PORT= npm start` should mean the default.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const schema = fragments.reduce((all, f) => all.extend(f.env), envSchema as z.ZodObject<z.ZodRawShape>);
  const secrets = new Set([...SECRET_VARS, ...fragments.flatMap((f) => f.secrets ?? [])]);
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (i) => `${i.path.join('.')}: ${i.message} (got ${show(cleaned, i.path, secrets)})`,
      ),
    );
  }
  const all = parsed.data as Record<string, unknown>;
  const e = parsed.data as z.infer<typeof envSchema>;
  if (!e.CAIRN_BASE_URL && e.PORT === 0) {
    throw new ConfigError([
      'CAIRN_BASE_URL: required with PORT=0, because the port, and so every link Cairn publishes, is not known before start',
    ]);
  }
  // Half a setting would be silently ignored (no STARTTLS, a provider route answering 404).
  const given = (name: string) => cleaned[name] !== undefined;
  const halves = fragments.flatMap((f) => f.check?.(all, given) ?? []);
  if (halves.length > 0) throw new ConfigError(halves);
  // A wildcard listen address is not an address anyone can reach: link to loopback instead.
  const host = WILDCARD_HOSTS.has(e.HOST) ? '127.0.0.1' : e.HOST;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const baseUrl = (e.CAIRN_BASE_URL ?? `http://${shownHost}:${e.PORT}`).replace(/\/+$/, '');
  const areas = Object.assign(
    {},
    ...fragments.map((f) => f.read(all, { host: e.HOST, baseUrl })),
  ) as AreaSettings;
  return {
    ...areas,
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    dataDir: e.CAIRN_DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    secret: e.CAIRN_SECRET,
    logLevel: e.LOG_LEVEL,
    logFormat: e.CAIRN_LOG_FORMAT,
    metricsToken: e.CAIRN_METRICS_TOKEN,
    publicRateLimitPerMinute: e.CAIRN_PUBLIC_RATE_LIMIT,
    mcpRateLimitPerMinute: e.CAIRN_MCP_RATE_LIMIT,
    dbPoolSize: e.CAIRN_DB_POOL_SIZE,
    trustProxy: /^\d+$/.test(e.CAIRN_TRUST_PROXY)
      ? Number(e.CAIRN_TRUST_PROXY)
      : e.CAIRN_TRUST_PROXY === 'true',
    redisUrl: e.CAIRN_REDIS_URL,
    parserJobs: e.CAIRN_PARSER_JOBS,
    parserQueue: e.CAIRN_PARSER_QUEUE,
    requestTimeoutSeconds: e.CAIRN_REQUEST_TIMEOUT_SECONDS,
    writeTimeoutSeconds: e.CAIRN_WRITE_TIMEOUT_SECONDS,
    oauthChecksFile: e.CAIRN_OAUTH_CHECKS_FILE,
    noStreamClients: e.CAIRN_MCP_NO_STREAM_CLIENTS.map((item) => ({
      name: item.slice(0, item.lastIndexOf('@')),
      version: item.slice(item.lastIndexOf('@') + 1),
    })),
    mcpDirectCalls: e.CAIRN_MCP_DIRECT_CALLS === 'true',
    checkOutputs: e.CAIRN_CHECK_OUTPUTS === 'true',
    debugDbStatements: e.CAIRN_DEBUG_DB_STATEMENTS === 'true',
    allowedHosts: e.CAIRN_ALLOWED_HOSTS.map((h) => h.toLowerCase().replace(/\.(?=:\d+$|$)/, '')),
    allowedOrigins: e.CAIRN_ALLOWED_ORIGINS.map((o) => normalizeOrigin(o)!),
    fetch: {
      ports: [80, 443, ...e.CAIRN_FETCH_PORTS.map(Number)],
      dns: e.CAIRN_FETCH_DNS,
      caFile: e.CAIRN_FETCH_CA_FILE,
      timeoutSeconds: e.CAIRN_FETCH_TIMEOUT_SECONDS,
      allow: e.CAIRN_FETCH_ALLOW.map((h) => h.toLowerCase().replace(/^\[|\](?=:|$)/g, '')),
    },
  };
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

const SECRET_VARS = new Set(['CAIRN_SECRET', 'CAIRN_METRICS_TOKEN', 'DATABASE_URL', 'CAIRN_REDIS_URL']);

function show(env: Record<string, string | undefined>, path: PropertyKey[], secrets: Set<string>): string {
  const key = String(path[0]);
  if (secrets.has(key)) return 'a value that is not shown';
  const value = env[key];
  return value === undefined ? 'nothing' : JSON.stringify(value.slice(0, 80));
}
