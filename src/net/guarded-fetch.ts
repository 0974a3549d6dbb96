import type { LookupFunction } from 'node:net';
import tls from 'node:tls';
import zlib from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';
import { checkAddress, isBlockedHostName } from './address-policy.ts';
import { NetRefusal } from './refusal.ts';
import type { OutboundResolver } from './resolver.ts';
import { checkTargetUrl, portOf } from './url-policy.ts';

export interface FetchPolicy {
  /** Ports reads may use: 80 and 443, plus CAIRN_FETCH_PORTS. */
  ports: ReadonlySet<number>;
  /** Operator's exceptions (CAIRN_FETCH_ALLOW): `host` or `host:port` allowed despite a private address. */
  allow: ReadonlySet<string>;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
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

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The only way out to the internet (DESIGN.md convention 10): checks the URL, resolves once,
 * checks every address, connects to the checked one (so DNS rebinding cannot switch it),
 * follows redirects by hand re-checking each hop, caps time and size, and sends no cookies,
 * credentials or referrer.
 */
export class GuardedFetcher {
  constructor(
    private readonly resolver: OutboundResolver,
    private readonly policy: FetchPolicy,
  ) {}

  /** `maxRedirects` below the policy's is for checks that must read exactly the named place. */
  async fetch(rawUrl: string, accept = '*/*', maxRedirects = this.policy.maxRedirects): Promise<FetchResult> {
    const hops: string[] = [];
    let current = checkTargetUrl(rawUrl, this.policy.ports);
    let address = await this.pick(current);
    const deadline = AbortSignal.timeout(this.policy.timeoutMs);
    for (let hop = 0; hop <= maxRedirects; hop++) {
      hops.push(current.href);
      const res = await this.get(current, address, accept, deadline);
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && typeof location === 'string') {
        await res.body.dump();
        [current, address] = await this.admitRedirect(location, current);
        continue;
      }
      const raw = await readCapped(res.body, this.policy.maxBytes);
      return {
        url: current.href,
        status: res.statusCode,
        headers: flatten(res.headers),
        raw,
        body: decode(raw, res.headers['content-encoding'], this.policy.maxBytes),
        hops,
        address,
      };
    }
    throw new NetRefusal('TOO_MANY_REDIRECTS', `More than ${maxRedirects} redirects.`, { hops });
  }

  /** A redirect target gets every check the first URL got; one that fails them is out of scope. */
  private async admitRedirect(location: string, from: URL): Promise<[URL, string]> {
    let target = location;
    try {
      target = new URL(location, from).href;
      const url = checkTargetUrl(target, this.policy.ports);
      return [url, await this.pick(url)];
    } catch (err) {
      if (err instanceof NetRefusal && err.reason === 'DNS_FAILED') throw err;
      const why = err instanceof NetRefusal ? err.message : 'the Location header is not a valid URL';
      throw new NetRefusal('REDIRECT_OUT_OF_SCOPE', `A redirect led out of scope: ${why}`, {
        redirect_target: target.slice(0, 2_000),
        cause: err instanceof NetRefusal ? err.reason : 'MALFORMED_LOCATION',
      });
    }
  }

  /** The address to connect to: resolved once, every answer checked, unless the operator allowed the host. */
  private async pick(url: URL): Promise<string> {
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    const allowed = this.policy.allow.has(host) || this.policy.allow.has(`${host}:${portOf(url)}`);
    if (!allowed && isBlockedHostName(host))
      throw new NetRefusal('HOST_BLOCKED', `${host} is an internal name.`, { host });
    const addresses = ipaddr.isValid(host) ? [host] : await this.resolver.addresses(host);
    if (!allowed) {
      for (const address of addresses) {
        const verdict = checkAddress(address);
        if (!verdict.allowed) {
          throw new NetRefusal(
            'ADDRESS_NOT_PUBLIC',
            `${host} leads to a non-public address (${verdict.reason}).`,
            {
              host,
              reason: verdict.reason,
            },
          );
        }
      }
    }
    return addresses[0]!;
  }

  private async get(url: URL, address: string, accept: string, signal: AbortSignal) {
    const family = ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4;
    // Pin the connection to the checked address whatever the name resolves to by now.
    const lookup: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all)
        (callback as (e: null, a: object[]) => void)(null, [{ address, family }]);
      else callback(null, address, family);
    };
    const dispatcher = new Agent({
      connect: {
        lookup,
        timeout: this.policy.timeoutMs,
        ...(this.policy.extraCa ? { ca: [...tls.rootCertificates, this.policy.extraCa] } : {}),
      },
      headersTimeout: this.policy.timeoutMs,
      bodyTimeout: this.policy.timeoutMs,
    });
    try {
      const res = await request(url, {
        method: 'GET',
        dispatcher,
        signal,
        // Only these headers, ever: no cookies, no Authorization, no Referer.
        headers: { 'user-agent': this.policy.userAgent, accept, 'accept-encoding': 'gzip, deflate, br' },
      });
      res.body.once('end', () => void dispatcher.close());
      res.body.once('error', () => void dispatcher.destroy());
      return res;
    } catch (err) {
      void dispatcher.destroy();
      if (signal.aborted) throw new NetRefusal('TIMEOUT', `No answer within ${this.policy.timeoutMs} ms.`);
      throw new NetRefusal('CONNECTION_FAILED', `Could not connect to ${url.host}.`, {
        cause: (err as Error).message,
      });
    }
  }
}

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): void },
  maxBytes: number,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) {
      body.destroy();
      throw new NetRefusal('RESPONSE_TOO_LARGE', `The response is larger than ${maxBytes} bytes.`, {
        max_bytes: maxBytes,
      });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Content decoding with the same cap on the output: a small bomb cannot expand past it. */
function decode(raw: Buffer, encoding: string | string[] | undefined, maxBytes: number): Buffer {
  const enc = String(encoding ?? '')
    .trim()
    .toLowerCase();
  const opts = { maxOutputLength: maxBytes };
  try {
    if (enc === 'gzip' || enc === 'x-gzip') return zlib.gunzipSync(raw, opts);
    if (enc === 'deflate') return zlib.inflateSync(raw, opts);
    if (enc === 'br') return zlib.brotliDecompressSync(raw, opts);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new NetRefusal('RESPONSE_TOO_LARGE', `The decoded response is larger than ${maxBytes} bytes.`);
    }
    throw new NetRefusal('CONNECTION_FAILED', `The ${enc} body could not be decoded.`);
  }
  return raw;
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
