import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { type Config, ConfigError } from '../config/config.ts';
import { GuardedFetcher } from './guarded-fetch.ts';
import { FETCH_LIMITS } from './limits.ts';
import { OutboundResolver } from './resolver.ts';

/** The one way out to the internet: the checked resolver and the fetcher pinned to it. */
export interface Outbound {
  resolver: OutboundResolver;
  fetcher: GuardedFetcher;
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

/** Configured once for the whole process; `userAgent` names the server and where to read about it. */
export function buildOutbound(config: Config, logger: Logger, userAgent: string): Outbound {
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
    maxBytes: FETCH_LIMITS.responseBytes,
    maxRedirects: FETCH_LIMITS.redirects,
    userAgent,
    ...(config.fetch.caFile ? { extraCa: readCaFile(config.fetch.caFile) } : {}),
  });
  return { resolver, fetcher };
}
