import { promises as dns } from 'node:dns';
import { NetRefusal } from './refusal.ts';

/** Name resolution for outbound reads; injectable so tests can play a rebinding DNS server. */
export interface Resolver {
  /** Every A and AAAA address of a host name; throws NetRefusal DNS_FAILED when there is none. */
  addresses(host: string): Promise<string[]>;
  /** TXT records of a name, each joined into one string; empty when there are none. */
  txt(name: string): Promise<string[]>;
}

/**
 * DNS for outbound reads: the operator's resolvers (CAIRN_FETCH_DNS, `host:port`, e.g. a
 * filtering resolver) when set, the system's otherwise. Each lookup is made once; the caller
 * checks every answer and connects to the one it checked.
 */
export class OutboundResolver implements Resolver {
  private readonly resolver: dns.Resolver | null;

  constructor(servers: string[] = [], timeoutMs = 5_000) {
    if (servers.length === 0) {
      this.resolver = null;
      return;
    }
    this.resolver = new dns.Resolver({ timeout: timeoutMs, tries: 2 });
    this.resolver.setServers(servers);
  }

  /** Every A and AAAA address of a host name. */
  async addresses(host: string): Promise<string[]> {
    try {
      if (!this.resolver)
        return (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
      const [v4, v6] = await Promise.allSettled([this.resolver.resolve4(host), this.resolver.resolve6(host)]);
      const found = [
        ...(v4.status === 'fulfilled' ? v4.value : []),
        ...(v6.status === 'fulfilled' ? v6.value : []),
      ];
      if (found.length === 0) throw new Error('no A or AAAA record');
      return found;
    } catch (err) {
      throw new NetRefusal('DNS_FAILED', `Could not resolve ${host}.`, {
        host,
        cause: (err as Error).message,
      });
    }
  }

  /** TXT records of a name, each joined into one string; empty when there are none. */
  async txt(name: string): Promise<string[]> {
    try {
      const records = this.resolver ? await this.resolver.resolveTxt(name) : await dns.resolveTxt(name);
      return records.map((parts) => parts.join(''));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENODATA' || code === 'ENOTFOUND') return [];
      throw new NetRefusal('DNS_FAILED', `Could not look up TXT records of ${name}.`, { name, cause: code });
    }
  }
}
