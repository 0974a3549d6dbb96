/** Plain types shared by the fetcher and the robots.txt cache (kept apart so neither imports the other's code). */

export interface FetchPolicy {
  /** Ports reads may use: 80 and 443, plus CAIRN_FETCH_PORTS. */
  ports: ReadonlySet<number>;
  /**
   * Operator's exceptions (CAIRN_FETCH_ALLOW): `host` or `host:port`, matched exactly, allowed
   * despite a private address. Every other check still applies to them.
   */
  allow: ReadonlySet<string>;
  /** Deadline for a whole read: every hop, robots.txt lookups and the body included. */
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Sent on every request; its product token (`Cairn` of `Cairn/1.2 (+…)`) is what robots.txt rules name. */
  userAgent: string;
  /** Extra trusted CA certificates (PEM), added to Node's own roots: an operator's internal CA. */
  extraCa?: string;
}

export interface FetchResult {
  url: string;
  status: number;
  headers: Record<string, string>;
  /** The exact bytes received (what body hashes are taken of). */
  raw: Buffer;
  /** The body after content decoding. */
  body: Buffer;
  /** Every URL visited, the first included. */
  hops: string[];
  /** The address the final request connected to. */
  address: string;
}

export interface FetchOptions {
  /**
   * Keep only the first this-many bytes of the body (raw and decoded) and stop reading, instead
   * of refusing a larger body: for files read up to a parse limit, such as robots.txt.
   */
  truncateAt?: number;
  /**
   * Extra `x-*` headers for an operator-configured service (a search API key). Never set for
   * URLs an agent chose; cookies, Authorization and Referer stay impossible either way.
   */
  serviceHeaders?: Record<string, string>;
  /**
   * Set only by `fetchService`, for a URL Cairn built from operator configuration (plus, say, a
   * search query): only its scheme is checked (any port, any query content), and its host counts
   * as operator-allowed for the address check. Other callers' `fetch` options never carry it.
   */
  trustedService?: boolean;
  /**
   * A smaller size cap than the policy's, refused past (RESPONSE_TOO_LARGE) rather than cut: for
   * small documents read on a person's behalf, such as a client's metadata document.
   */
  maxBytes?: number;
  /** A shorter deadline than the policy's for the whole read, for reads a person waits on. */
  timeoutMs?: number;
}

/** What the robots.txt cache needs from a fetcher: the low-level read, without robots checks. */
export interface RobotsSource {
  fetch(url: string, accept: string, maxRedirects: number, options?: FetchOptions): Promise<FetchResult>;
}
