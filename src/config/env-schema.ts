import { z } from 'zod';

/**
 * The server's own environment variables, each with its rule and default (docs/configuration.md):
 * listening, storage, logs, limits, outbound reads, the MCP endpoint. An area's variables are in
 * its settings fragment (config/settings.ts). config.ts turns what passes into the Config.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A URL whose scheme is one of `protocols` (each with its colon). */
export const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL starting with ${protocols.join(' or ')}//`,
  );

/** A comma-separated list whose every item matches `item`. */
export const list = (item: RegExp, message: string) =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .refine((items) => items.every((x) => item.test(x)), message);

export const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  HOST: z.string().min(1).max(255).default('127.0.0.1'),
  CAIRN_BASE_URL: url(['http:', 'https:']).optional(),
  CAIRN_DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  CAIRN_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  CAIRN_LOG_FORMAT: z
    .enum(['auto', 'json', 'pretty'], { message: 'must be auto, json or pretty' })
    .default('auto'),
  CAIRN_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  CAIRN_PUBLIC_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(300),
  CAIRN_MCP_RATE_LIMIT: z.coerce.number().int().min(1).max(10_000_000).default(1_200),
  CAIRN_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  CAIRN_TRUST_PROXY: z
    .union([z.enum(['true', 'false']), z.string().regex(/^\d{1,2}$/, 'must be true, false or a hop count')])
    .default('false'),
  CAIRN_FETCH_PORTS: list(/^\d{1,5}$/, 'a comma-separated list of port numbers').refine(
    (ports) => ports.every((p) => Number(p) >= 1 && Number(p) <= 65_535),
    'ports must be 1-65535',
  ),
  CAIRN_FETCH_DNS: list(
    /^[0-9a-fA-F.:[\]]+:\d{1,5}$|^[0-9.]+$/,
    'a comma-separated list of DNS servers as host:port',
  ),
  CAIRN_FETCH_ALLOW: list(
    /^[a-z0-9.-]+(?::\d{1,5})?$|^\[[0-9a-f:.]+\](?::\d{1,5})?$/i,
    'a comma-separated list of host or host:port',
  ),
  CAIRN_FETCH_CA_FILE: z.string().min(1).optional(),
  CAIRN_FETCH_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(120).default(20),
  CAIRN_REDIS_URL: url(['redis:', 'rediss:']).optional(),
  CAIRN_PARSER_JOBS: z.coerce.number().int().min(1).max(16).default(2),
  CAIRN_PARSER_QUEUE: z.coerce.number().int().min(0).max(1_000).default(32),
  CAIRN_MCP_NO_STREAM_CLIENTS: z
    .string()
    .max(4_000)
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .refine(
      (items) => items.every((x) => x.lastIndexOf('@') > 0 && x.lastIndexOf('@') < x.length - 1),
      'a comma-separated list of name@version (version * for any)',
    ),
  CAIRN_MCP_DIRECT_CALLS: z.enum(['true', 'false'], { message: 'must be true or false' }).default('true'),
  CAIRN_CHECK_OUTPUTS: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),
  CAIRN_DEBUG_DB_STATEMENTS: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),
  CAIRN_OAUTH_CHECKS_FILE: z.string().min(1).max(4_096).optional(),
  CAIRN_REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(2).max(600).default(30),
  CAIRN_WRITE_TIMEOUT_SECONDS: z.coerce.number().int().min(2).max(600).default(30),
  CAIRN_ALLOWED_HOSTS: list(
    /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9.])?(?::\d{1,5})?$|^\[[0-9a-f:.]+\](?::\d{1,5})?$/i,
    'a comma-separated list of host or host:port (no scheme, no path), e.g. cairn.internal,10.0.0.5:8080',
  ).refine(
    (hosts) => hosts.every((h) => portOf(h) === null || (portOf(h)! >= 1 && portOf(h)! <= 65_535)),
    'ports must be 1-65535',
  ),
  CAIRN_ALLOWED_ORIGINS: list(
    /^\*$|^[a-z][a-z0-9+.-]*:\/\/[^\s/?#@,]+\/?$/i,
    'a comma-separated list of origins as scheme://host[:port] (no path), e.g. https://app.example, or *',
  ).refine(
    (origins) => origins.every((o) => normalizeOrigin(o) !== null),
    'every origin must be a valid scheme://host[:port]',
  ),
});

/**
 * An origin as browsers serialize it: lower-case, no trailing slash, no default port for http
 * and https. Other schemes (browser extensions, editor webviews) are kept as written, lower-cased.
 * Null when an http(s) origin does not parse or carries more than scheme, host and port.
 */
export function normalizeOrigin(value: string): string | null {
  if (value === '*') return value;
  const trimmed = value.replace(/\/$/, '').toLowerCase();
  if (!/^https?:/.test(trimmed)) return trimmed;
  try {
    const parsed = new URL(trimmed);
    return parsed.origin === 'null' || parsed.username || parsed.password ? null : parsed.origin;
  } catch {
    return null;
  }
}

/** The port a `host:port` entry names, null for a bare host. */
function portOf(entry: string): number | null {
  const match = /^(?:\[[^\]]*\]|[^:]*):(\d+)$/.exec(entry);
  return match ? Number(match[1]) : null;
}
