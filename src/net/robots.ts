import robotsParserModule from 'robots-parser';
import type { RobotsSource } from './fetch-types.ts';
import { NetRefusal, type NetRefusalReason } from './refusal.ts';

// The package's types declare an ES default export, but it is CommonJS `module.exports = fn`,
// which Node hands to an ESM default import as it is.
const robotsParser = robotsParserModule as unknown as (typeof robotsParserModule)['default'];

/**
 * robots.txt for Cairn's own user agent (RFC 9309), cached per origin. A definite answer (the
 * file, or a 4xx meaning "no rules") is kept up to a day; a failure to read it (5xx,
 * unreachable, timeout) means "disallow everything" for now, kept only briefly so that a
 * recovering site is read again soon.
 */

/** RFC 9309 §2.5: parse at least 500 KiB; the rest of a larger file is ignored. */
export const ROBOTS_PARSE_LIMIT = 500 * 1024;
/** RFC 9309 §2.3.1.2: follow at least five redirects. */
const ROBOTS_MAX_REDIRECTS = 5;

export interface RobotsCacheOptions {
  /** Origins remembered at most; the least recently used is forgotten first. */
  maxOrigins?: number;
  /** How long a read robots.txt (or a 4xx) is trusted; RFC 9309 §2.4 says at most 24 hours. */
  ttlMs?: number;
  /** How long "disallow all" after a failed read is kept. */
  failureTtlMs?: number;
  now?: () => number;
}

/** How a verdict came about: the file's rules, no file (4xx), or no answer (5xx, unreachable). */
export type RobotsBasis = 'RULES' | 'UNAVAILABLE' | 'UNREACHABLE';

export interface RobotsVerdict {
  allowed: boolean;
  robotsUrl: string;
  basis: RobotsBasis;
}

interface Rules {
  basis: RobotsBasis;
  isAllowed(url: string): boolean;
}

interface Entry {
  rules: Promise<Rules>;
  expiresAt: number;
}

// Refusals that are about the origin itself, not about its robots.txt: the page read would be
// refused for the same reason, so it is passed on as it is and not remembered.
const ORIGIN_REFUSALS = new Set<NetRefusalReason>([
  'SCHEME_NOT_ALLOWED',
  'PORT_NOT_ALLOWED',
  'HOST_BLOCKED',
  'ADDRESS_NOT_PUBLIC',
  'DNS_FAILED',
]);

const allowAll = (basis: RobotsBasis): Rules => ({ basis, isAllowed: () => true });
const disallowAll: Rules = { basis: 'UNREACHABLE', isAllowed: () => false };

/** The product token of a User-Agent header: `Cairn` of `Cairn/1.2 (+https://…)`. */
export function productToken(userAgent: string): string {
  return /^[A-Za-z_-]+/.exec(userAgent.trim())?.[0] ?? userAgent;
}

export class RobotsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly token: string;
  private readonly maxOrigins: number;
  private readonly ttlMs: number;
  private readonly failureTtlMs: number;
  private readonly now: () => number;

  /** `source` is the low-level fetcher, so reading robots.txt is not itself subject to robots.txt. */
  constructor(
    private readonly source: RobotsSource,
    userAgent: string,
    options: RobotsCacheOptions = {},
  ) {
    this.token = productToken(userAgent);
    this.maxOrigins = options.maxOrigins ?? 1_000;
    this.ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
    this.failureTtlMs = options.failureTtlMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Origins currently remembered. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Whether Cairn's user agent may read `url` by its origin's robots.txt, reading that file
   * once per cache period (concurrent checks of one origin share one read). Throws the fetch's
   * NetRefusal when the origin itself is unreachable by policy (blocked host, private address,
   * DNS failure).
   */
  async check(url: URL): Promise<RobotsVerdict> {
    const robotsUrl = `${url.origin}/robots.txt`;
    const rules = await this.rulesFor(url.origin, robotsUrl);
    return { allowed: rules.isAllowed(url.href), robotsUrl, basis: rules.basis };
  }

  private rulesFor(origin: string, robotsUrl: string): Promise<Rules> {
    const cached = this.entries.get(origin);
    this.entries.delete(origin);
    if (cached && cached.expiresAt > this.now()) {
      this.entries.set(origin, cached); // most recently used goes last
      return cached.rules;
    }
    const entry: Entry = { rules: this.load(robotsUrl), expiresAt: Number.POSITIVE_INFINITY };
    this.entries.set(origin, entry);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxOrigins) break;
      this.entries.delete(oldest);
    }
    entry.rules.then(
      (rules) => {
        entry.expiresAt = this.now() + (rules.basis === 'UNREACHABLE' ? this.failureTtlMs : this.ttlMs);
      },
      () => {
        if (this.entries.get(origin) === entry) this.entries.delete(origin);
      },
    );
    return entry.rules;
  }

  private async load(robotsUrl: string): Promise<Rules> {
    try {
      const res = await this.source.fetch(robotsUrl, 'text/plain', ROBOTS_MAX_REDIRECTS, {
        truncateAt: ROBOTS_PARSE_LIMIT,
      });
      if (res.status >= 200 && res.status < 300) {
        const robots = robotsParser(robotsUrl, res.body.toString('utf8'));
        // A URL outside the file's origin gets `undefined`; that cannot happen here, and is no rule.
        return { basis: 'RULES', isAllowed: (url) => robots.isAllowed(url, this.token) !== false };
      }
      // RFC 9309 §2.3.1.3: a 4xx means there are no rules. 429 is the exception: like Google,
      // Cairn reads "too many requests" as the server struggling, not as permission.
      if (res.status >= 400 && res.status < 500 && res.status !== 429) return allowAll('UNAVAILABLE');
      return disallowAll;
    } catch (err) {
      if (err instanceof NetRefusal && ORIGIN_REFUSALS.has(err.reason)) throw err;
      // §2.3.1.2: past the redirect limit the file MAY be taken as unavailable.
      if (err instanceof NetRefusal && err.reason === 'TOO_MANY_REDIRECTS') return allowAll('UNAVAILABLE');
      // §2.3.1.4: unreachable (timeout, connection, an out-of-scope redirect) means disallow all.
      return disallowAll;
    }
  }
}
