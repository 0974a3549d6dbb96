import { checkAddress, isBlockedHostName, literalAddress } from './address-policy.ts';
import { decodeLayers, flattenHeaders, readCapped } from './body.ts';
import type { FetchOptions, FetchPolicy, FetchResult } from './fetch-types.ts';
import { pinnedGet } from './pinned-request.ts';
import { NetRefusal } from './refusal.ts';
import type { Resolver } from './resolver.ts';
import { RobotsCache, type RobotsCacheOptions } from './robots.ts';
import { isSignInSurface } from './sign-in.ts';
import { checkServiceUrl, checkTargetUrl, portOf } from './url-policy.ts';

export type { FetchOptions, FetchPolicy, FetchResult } from './fetch-types.ts';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Extra checks a page read makes of each hop after the URL and address checks. */
type HopGate = (url: URL, deadline: AbortSignal) => Promise<void>;

export interface GuardedFetcherOptions {
  /** Tuning for the robots.txt cache page reads consult (sizes, lifetimes, clock). */
  robots?: RobotsCacheOptions;
}

/**
 * The only way out to the internet (DESIGN.md convention 10): checks the URL, resolves once,
 * checks every address, connects to the checked one (so DNS rebinding cannot switch it),
 * follows redirects by hand re-checking each hop, caps time and size, and sends no cookies,
 * credentials or referrer.
 */
export class GuardedFetcher {
  /** robots.txt per origin, read through this fetcher's low-level `fetch`. */
  readonly robots: RobotsCache;

  constructor(
    private readonly resolver: Resolver,
    private readonly policy: FetchPolicy,
    options: GuardedFetcherOptions = {},
  ) {
    this.robots = new RobotsCache(this, policy.userAgent, options.robots);
  }

  /**
   * The low-level read (domain verification, robots.txt): URL, address and redirect checks,
   * caps and deadline, but no sign-in or robots.txt checks. `maxRedirects` below the policy's
   * is for checks that must read exactly the named place.
   */
  async fetch(
    rawUrl: string,
    accept = '*/*',
    maxRedirects = this.policy.maxRedirects,
    options: FetchOptions = {},
  ): Promise<FetchResult> {
    // Only fetchService may call a URL trusted; no caller of `fetch` can ask for it.
    const { trustedService: _, ...checked } = options;
    return this.follow(
      checkTargetUrl(rawUrl, this.policy.ports, this.policy.allow),
      accept,
      maxRedirects,
      checked,
      null,
    );
  }

  /**
   * Reads a public web page for a person who asked for it: everything `fetch` checks, and
   * besides, for the first URL and every redirect hop, that it is no sign-in surface and that
   * the origin's robots.txt allows Cairn's user agent there. Refuses with SIGN_IN_SURFACE or
   * ROBOTS_DISALLOWED (details.robots_url) for the first URL, REDIRECT_OUT_OF_SCOPE (with
   * details.cause) for a later hop.
   */
  async readPage(rawUrl: string, accept: string): Promise<FetchResult> {
    const url = checkTargetUrl(rawUrl, this.policy.ports, this.policy.allow);
    refuseSignIn(url);
    return this.follow(url, accept, this.policy.maxRedirects, {}, (hop, deadline) =>
      this.checkRobots(hop, deadline),
    );
  }

  /**
   * What readPage checks of a URL before any request, without contacting anything (policy_explain's
   * simulation): the URL itself, sign-in surfaces, internal host names and literal addresses.
   * Name resolution, robots.txt and redirects happen only when the page is read. Throws NetRefusal.
   */
  preflight(rawUrl: string): void {
    const url = checkTargetUrl(rawUrl, this.policy.ports, this.policy.allow);
    refuseSignIn(url);
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (this.policy.allow.has(host) || this.policy.allow.has(`${host}:${portOf(url)}`)) return;
    if (isBlockedHostName(host))
      throw new NetRefusal('HOST_BLOCKED', `${host} is an internal name.`, { host });
    const literal = literalAddress(host);
    const verdict = literal ? checkAddress(literal) : null;
    if (verdict && !verdict.allowed) {
      throw new NetRefusal('ADDRESS_NOT_PUBLIC', `${host} is a non-public address (${verdict.reason}).`, {
        host,
        range: verdict.reason,
      });
    }
  }

  /**
   * A GET of an operator-configured service (web search providers) at a URL Cairn built from
   * configuration and, say, an agent's search query. Only its scheme is checked: the operator
   * chose the endpoint, its port and its host (which counts as allowed, so a SearXNG on a
   * private address needs no CAIRN_FETCH_ALLOW), and a query may well name a URL. It sends the
   * service's own `x-*` headers, such as an API key, follows no redirects, and keeps the size
   * and time caps. Only names starting with `x-` are accepted, so no cookie, Authorization or
   * Referer can ride along.
   */
  async fetchService(rawUrl: string, headers: Record<string, string>): Promise<FetchResult> {
    const { accept = 'application/json', ...rest } = headers;
    for (const name of Object.keys(rest)) {
      if (!/^x-[a-z0-9-]{1,60}$/i.test(name)) throw new Error(`service header ${name} is not an x- header`);
    }
    // No redirects: the operator named the exact endpoint, and a key must not follow a hop elsewhere.
    return this.follow(
      checkServiceUrl(rawUrl),
      accept,
      0,
      { serviceHeaders: rest, trustedService: true },
      null,
    );
  }

  private async follow(
    first: URL,
    accept: string,
    maxRedirects: number,
    options: FetchOptions,
    gate: HopGate | null,
  ): Promise<FetchResult> {
    const timeoutMs = Math.min(options.timeoutMs ?? this.policy.timeoutMs, this.policy.timeoutMs);
    // The deadline remembers its length, so a TIMEOUT names the deadline that ran out.
    const deadline = Object.assign(AbortSignal.timeout(timeoutMs), { ms: timeoutMs });
    const hops: string[] = [];
    let current = first;
    let address = await this.withinDeadline(this.pick(current, options.trustedService === true), deadline);
    if (gate) await gate(current, deadline);
    for (let hop = 0; hop <= maxRedirects; hop++) {
      hops.push(current.href);
      const res = await pinnedGet({
        url: current,
        address,
        accept,
        userAgent: this.policy.userAgent,
        signal: deadline,
        timeoutMs,
        extraCa: this.policy.extraCa,
        serviceHeaders: options.serviceHeaders,
      });
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && typeof location === 'string') {
        await res.body.dump();
        // A hop that will not be followed is not checked either (nor its name resolved).
        if (hop === maxRedirects) break;
        [current, address] = await this.admitRedirect(location, current, gate, deadline);
        continue;
      }
      const cap = options.truncateAt ?? Math.min(options.maxBytes ?? Infinity, this.policy.maxBytes);
      const raw = await this.receive(
        () => readCapped(res.body, cap, options.truncateAt !== undefined),
        deadline,
      );
      const encoding = flattenHeaders(res.headers)['content-encoding'];
      const body = options.truncateAt
        ? decodeLayers(raw, encoding, this.policy.maxBytes, true).subarray(0, options.truncateAt)
        : decodeLayers(raw, encoding, cap, false);
      return {
        url: current.href,
        status: res.statusCode,
        headers: flattenHeaders(res.headers),
        raw,
        body,
        hops,
        address,
      };
    }
    throw new NetRefusal('TOO_MANY_REDIRECTS', `More than ${maxRedirects} redirects.`, { hops });
  }

  /** A redirect target gets every check the first URL got; one that fails them is out of scope. */
  private async admitRedirect(
    location: string,
    from: URL,
    gate: HopGate | null,
    deadline: AbortSignal,
  ): Promise<[URL, string]> {
    let target = location;
    try {
      target = new URL(location, from).href;
      const url = checkTargetUrl(target, this.policy.ports, this.policy.allow);
      if (gate) refuseSignIn(url);
      const address = await this.withinDeadline(this.pick(url), deadline);
      if (gate) await gate(url, deadline);
      return [url, address];
    } catch (err) {
      // Not knowing where a hop leads, or running out of time, is no verdict on the target.
      if (err instanceof NetRefusal && (err.reason === 'DNS_FAILED' || err.reason === 'TIMEOUT')) throw err;
      const why = err instanceof NetRefusal ? err.message : 'the Location header is not a valid URL';
      throw new NetRefusal('REDIRECT_OUT_OF_SCOPE', `A redirect led out of scope: ${why}`, {
        ...(err instanceof NetRefusal ? err.details : {}),
        redirect_target: target.slice(0, 2_000),
        cause: err instanceof NetRefusal ? err.reason : 'MALFORMED_LOCATION',
      });
    }
  }

  /**
   * The address to connect to: resolved once, every answer checked, unless the operator allowed
   * the host (in CAIRN_FETCH_ALLOW, or by configuring it as a service: `operatorHost`).
   */
  private async pick(url: URL, operatorHost = false): Promise<string> {
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const allowed =
      operatorHost || this.policy.allow.has(host) || this.policy.allow.has(`${host}:${portOf(url)}`);
    if (!allowed && isBlockedHostName(host))
      throw new NetRefusal('HOST_BLOCKED', `${host} is an internal name.`, { host });
    const literal = literalAddress(host);
    const addresses = literal ? [literal] : await this.resolver.addresses(host);
    if (addresses.length === 0) throw new NetRefusal('DNS_FAILED', `${host} has no address.`, { host });
    if (!allowed) {
      for (const address of addresses) {
        const verdict = checkAddress(address);
        if (!verdict.allowed) {
          throw new NetRefusal(
            'ADDRESS_NOT_PUBLIC',
            `${host} leads to a non-public address (${verdict.reason}).`,
            {
              host,
              range: verdict.reason,
            },
          );
        }
      }
    }
    return addresses[0]!;
  }

  private async checkRobots(url: URL, deadline: AbortSignal): Promise<void> {
    const verdict = await this.withinDeadline(this.robots.check(url), deadline);
    if (verdict.allowed) return;
    const why =
      verdict.basis === 'RULES'
        ? 'its robots.txt disallows Cairn there'
        : 'its robots.txt could not be read, which counts as disallowing everything for now';
    throw new NetRefusal('ROBOTS_DISALLOWED', `${url.origin} is not read: ${why}.`, {
      robots_url: verdict.robotsUrl,
      robots_basis: verdict.basis,
    });
  }

  /** Body reads fail as TIMEOUT past the deadline and CONNECTION_FAILED when the stream breaks. */
  private async receive(read: () => Promise<Buffer>, deadline: AbortSignal): Promise<Buffer> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof NetRefusal) throw err;
      if (deadline.aborted) throw this.timeout(deadline);
      throw new NetRefusal('CONNECTION_FAILED', 'The response broke off.', { cause: (err as Error).message });
    }
  }

  /** Waits for `work` no longer than the whole read's deadline (DNS and robots.txt have their own, longer, clocks). */
  private withinDeadline<T>(work: Promise<T>, deadline: AbortSignal): Promise<T> {
    if (deadline.aborted) return Promise.reject(this.timeout(deadline));
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(this.timeout(deadline));
      deadline.addEventListener('abort', onAbort, { once: true });
      work.then(
        (value) => {
          deadline.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (err: unknown) => {
          deadline.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }

  private timeout(deadline: AbortSignal & { ms?: number }): NetRefusal {
    return new NetRefusal('TIMEOUT', `No answer within ${deadline.ms ?? this.policy.timeoutMs} ms.`);
  }
}

function refuseSignIn(url: URL): void {
  if (isSignInSurface(url)) {
    throw new NetRefusal(
      'SIGN_IN_SURFACE',
      `${url.origin}${url.pathname} is a sign-in page; Cairn reads only public pages.`,
    );
  }
}
