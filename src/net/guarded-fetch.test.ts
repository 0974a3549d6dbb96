import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsFixture, startDnsFixture } from '../../test/support/dns-fixture.ts';
import { type FetchPolicy, GuardedFetcher } from './guarded-fetch.ts';
import type { NetRefusal } from './refusal.ts';
import { OutboundResolver, type Resolver } from './resolver.ts';

/** The real fetcher against a loopback fixture site and a loopback DNS server. */

let site: Server;
let port: number;
let dns: DnsFixture;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  site = createServer((req, res) => {
    seen.push(req.headers);
    const path = req.url ?? '/';
    if (path === '/hello') return res.end('hello world');
    if (path.startsWith('/loop')) return res.writeHead(302, { location: `/loop${path.length}` }).end();
    if (path === '/out') return res.writeHead(302, { location: 'http://10.0.0.1/secret' }).end();
    if (path === '/to-name') return res.writeHead(302, { location: 'http://rebind.test/x' }).end();
    if (path === '/badloc') return res.writeHead(302, { location: 'http://[::1' }).end();
    if (path === '/big') return res.end(Buffer.alloc(5_000, 'x'));
    if (path === '/bomb') {
      return res
        .writeHead(200, { 'content-encoding': 'gzip' })
        .end(zlib.gzipSync(Buffer.alloc(10_000_000, 0)));
    }
    if (path === '/gz')
      return res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync('small text'));
    if (path === '/gzgz') {
      return res
        .writeHead(200, { 'content-encoding': 'gzip, gzip' })
        .end(zlib.gzipSync(zlib.gzipSync('twice packed')));
    }
    if (path === '/gz3') {
      return res
        .writeHead(200, { 'content-encoding': 'gzip, gzip, gzip' })
        .end(zlib.gzipSync(zlib.gzipSync(zlib.gzipSync('thrice'))));
    }
    if (path === '/stackbomb') {
      return res
        .writeHead(200, { 'content-encoding': 'gzip, gzip' })
        .end(zlib.gzipSync(zlib.gzipSync(Buffer.alloc(10_000_000, 0))));
    }
    if (path === '/corrupt')
      return res
        .writeHead(200, { 'content-encoding': 'gzip' })
        .end(Buffer.from('this is not gzip data at all'));
    if (path.startsWith('/search?')) {
      const q = new URL(path, 'http://x').searchParams.get('q');
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ q }));
    }
    if (path === '/service-redirect') return res.writeHead(302, { location: '/hello' }).end();
    if (path === '/slow') return; // never answers
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  port = (site.address() as AddressInfo).port;
  dns = await startDnsFixture();
  dns.records.set('fixture.test', { A: ['127.0.0.1'] });
  dns.records.set('private.test', { A: ['10.1.2.3'] });
  dns.records.set('mixed.test', { A: ['8.8.8.8', '127.0.0.1'] });
  dns.records.set('search.test', { A: ['127.0.0.1'] });
  dns.records.set('intranet', { A: ['127.0.0.1'] });
});
afterAll(async () => {
  site.closeAllConnections();
  await new Promise((r) => site.close(r));
  await dns.close();
});

function fetcher(over: Partial<FetchPolicy> = {}) {
  const policy: FetchPolicy = {
    ports: new Set([80, 443, port]),
    allow: new Set([`127.0.0.1:${port}`, `fixture.test:${port}`]),
    timeoutMs: 2_000,
    maxBytes: 1_000_000,
    maxRedirects: 5,
    userAgent: 'CairnTest/1',
    ...over,
  };
  return new GuardedFetcher(new OutboundResolver([dns.server]), policy);
}

async function refusal(p: Promise<unknown>): Promise<NetRefusal> {
  try {
    await p;
  } catch (err) {
    return err as NetRefusal;
  }
  throw new Error('expected a refusal');
}

describe('GuardedFetcher', () => {
  it('reads an allowed fixture and sends only its own headers', async () => {
    const res = await fetcher().fetch(`http://fixture.test:${port}/hello`);
    expect(res).toMatchObject({
      status: 200,
      address: '127.0.0.1',
      hops: [`http://fixture.test:${port}/hello`],
    });
    expect(res.body.toString()).toBe('hello world');
    const headers = seen.at(-1)!;
    expect(Object.keys(headers).sort()).toEqual([
      'accept',
      'accept-encoding',
      'connection',
      'host',
      'user-agent',
    ]);
    expect(headers['user-agent']).toBe('CairnTest/1');
  });

  it('refuses private and loopback addresses unless the operator allowed the host', async () => {
    const bare = fetcher({ allow: new Set() });
    expect((await refusal(bare.fetch(`http://127.0.0.1:${port}/hello`))).reason).toBe('ADDRESS_NOT_PUBLIC');
    expect((await refusal(bare.fetch(`http://fixture.test:${port}/hello`))).reason).toBe(
      'ADDRESS_NOT_PUBLIC',
    );
    expect((await refusal(bare.fetch('http://private.test/'))).reason).toBe('ADDRESS_NOT_PUBLIC');
    expect((await refusal(bare.fetch('http://[::ffff:127.0.0.1]/'))).reason).toBe('ADDRESS_NOT_PUBLIC');
    expect((await refusal(bare.fetch('http://0x7f.1/'))).reason).toBe('ADDRESS_NOT_PUBLIC');
    expect((await refusal(bare.fetch('http://2130706433/'))).reason).toBe('ADDRESS_NOT_PUBLIC');
    expect((await refusal(bare.fetch('http://localhost/'))).reason).toBe('HOST_BLOCKED');
    expect((await refusal(bare.fetch('http://metadata.google.internal/'))).reason).toBe('HOST_BLOCKED');
  });

  it('refuses single-label names up front, before any lookup, unless the operator allowed one', async () => {
    const bare = fetcher({ allow: new Set() });
    for (const url of ['http://intranet/', 'http://ip6-localhost/', `http://intranet:${port}/hello`]) {
      const refused = await refusal(bare.fetch(url));
      expect(refused.reason, url).toBe('HOST_BLOCKED');
    }
    const allowed = fetcher({ allow: new Set([`intranet:${port}`]) });
    expect((await allowed.fetch(`http://intranet:${port}/hello`)).status).toBe(200);
  });

  it('lets an explicit host:port exception open that port for that host alone', async () => {
    const f = fetcher({ ports: new Set([80, 443]), allow: new Set([`fixture.test:${port}`]) });
    expect((await f.fetch(`http://fixture.test:${port}/hello`)).status).toBe(200);
    expect((await refusal(f.fetch(`http://127.0.0.1:${port}/hello`))).reason).toBe('PORT_NOT_ALLOWED');
  });

  it('keeps operator exceptions exact: another port, or a name below an allowed one, is checked', async () => {
    const f = fetcher({ allow: new Set(['fixture.test:443', 'test']) });
    expect((await refusal(f.fetch(`http://fixture.test:${port}/hello`))).reason).toBe('ADDRESS_NOT_PUBLIC');
  });

  it('refuses a name when any of its addresses is not public', async () => {
    expect((await refusal(fetcher({ allow: new Set() }).fetch('http://mixed.test/'))).reason).toBe(
      'ADDRESS_NOT_PUBLIC',
    );
  });

  it('resolves once per hop and connects to the address it checked', async () => {
    const before = dns.asked.filter((q) => q.endsWith('fixture.test')).length;
    await fetcher().fetch(`http://fixture.test:${port}/hello`);
    const questions = dns.asked.filter((q) => q.endsWith('fixture.test')).length - before;
    expect(questions).toBe(2); // one A and one AAAA question, nothing at connect time
  });

  it('connects to the first answer even when the name rebinds to a private address', async () => {
    // A rebinding DNS server: a usable answer when checked, a private one at any later lookup.
    // The operator allow-lists the name here (the fixture lives on loopback), so the address
    // check cannot be what stops the rebinding: only the pinned connection can.
    const calls: string[] = [];
    const rebinding: Resolver = {
      addresses: async (host) => {
        calls.push(host);
        return calls.length === 1 ? ['127.0.0.1'] : ['10.255.255.1'];
      },
      txt: async () => [],
    };
    const policy: FetchPolicy = {
      ports: new Set([80, 443, port]),
      allow: new Set([`rebind.test:${port}`]),
      timeoutMs: 2_000,
      maxBytes: 1_000_000,
      maxRedirects: 5,
      userAgent: 'CairnTest/1',
    };
    const res = await new GuardedFetcher(rebinding, policy).fetch(`http://rebind.test:${port}/hello`);
    expect(res.body.toString()).toBe('hello world');
    expect(res.address).toBe('127.0.0.1');
    expect(calls).toEqual(['rebind.test']);
    expect(seen.at(-1)!.host).toBe(`rebind.test:${port}`);
  });

  it('resolves each hop once and refuses a hop whose name answers privately', async () => {
    const calls: string[] = [];
    const resolver: Resolver = {
      addresses: async (host) => {
        calls.push(host);
        return ['10.0.0.7'];
      },
      txt: async () => [],
    };
    const policy: FetchPolicy = {
      ports: new Set([80, 443, port]),
      allow: new Set([`127.0.0.1:${port}`]),
      timeoutMs: 2_000,
      maxBytes: 1_000_000,
      maxRedirects: 5,
      userAgent: 'CairnTest/1',
    };
    const out = await refusal(new GuardedFetcher(resolver, policy).fetch(`http://127.0.0.1:${port}/to-name`));
    expect(out).toMatchObject({
      reason: 'REDIRECT_OUT_OF_SCOPE',
      details: { redirect_target: 'http://rebind.test/x', cause: 'ADDRESS_NOT_PUBLIC' },
    });
    expect(calls).toEqual(['rebind.test']);
  });

  it('checks every redirect hop and stops after five', async () => {
    const out = await refusal(fetcher().fetch(`http://127.0.0.1:${port}/out`));
    expect(out.reason).toBe('REDIRECT_OUT_OF_SCOPE');
    expect(out.details).toMatchObject({
      redirect_target: 'http://10.0.0.1/secret',
      cause: 'ADDRESS_NOT_PUBLIC',
      host: '10.0.0.1',
      range: 'IPv4 private address',
    });
    expect(out.details).not.toHaveProperty('reason');
    const bad = await refusal(fetcher().fetch(`http://127.0.0.1:${port}/badloc`));
    expect(bad).toMatchObject({ reason: 'REDIRECT_OUT_OF_SCOPE', details: { cause: 'MALFORMED_LOCATION' } });
    const none = await refusal(fetcher().fetch(`http://127.0.0.1:${port}/loop`, '*/*', 0));
    expect(none.reason).toBe('TOO_MANY_REDIRECTS');
    const loop = await refusal(fetcher().fetch(`http://127.0.0.1:${port}/loop`));
    expect(loop.reason).toBe('TOO_MANY_REDIRECTS');
    expect((loop.details.hops as string[]).length).toBe(6);
  });

  it('caps size, decompression and time', async () => {
    expect((await refusal(fetcher({ maxBytes: 1_000 }).fetch(`http://127.0.0.1:${port}/big`))).reason).toBe(
      'RESPONSE_TOO_LARGE',
    );
    expect(
      (await refusal(fetcher({ maxBytes: 100_000 }).fetch(`http://127.0.0.1:${port}/bomb`))).reason,
    ).toBe('RESPONSE_TOO_LARGE');
    expect(
      (await refusal(fetcher({ maxBytes: 100_000 }).fetch(`http://127.0.0.1:${port}/stackbomb`))).reason,
    ).toBe('RESPONSE_TOO_LARGE');
    expect((await fetcher().fetch(`http://127.0.0.1:${port}/gzgz`)).body.toString()).toBe('twice packed');
    expect((await refusal(fetcher().fetch(`http://127.0.0.1:${port}/gz3`))).reason).toBe(
      'UNSUPPORTED_ENCODING',
    );
    const gz = await fetcher().fetch(`http://127.0.0.1:${port}/gz`);
    expect(gz.body.toString()).toBe('small text');
    expect(gz.raw.equals(gz.body)).toBe(false);
    expect((await refusal(fetcher({ timeoutMs: 300 }).fetch(`http://127.0.0.1:${port}/slow`))).reason).toBe(
      'TIMEOUT',
    );
  });

  it('refuses before any request: bad schemes, ports, credentials and nested URLs', async () => {
    const count = seen.length;
    const f = fetcher();
    expect((await refusal(f.fetch('ftp://fixture.test/'))).reason).toBe('SCHEME_NOT_ALLOWED');
    expect((await refusal(f.fetch('http://fixture.test:1234/'))).reason).toBe('PORT_NOT_ALLOWED');
    expect((await refusal(f.fetch(`http://u:p@fixture.test:${port}/`))).reason).toBe('CREDENTIALS_IN_URL');
    expect((await refusal(f.fetch(`http://fixture.test:${port}/?u=https://x.example`))).reason).toBe(
      'NESTED_URL',
    );
    expect(seen.length).toBe(count);
  });

  it('calls a body that does not decode undecodable, not a connection failure', async () => {
    expect((await refusal(fetcher().fetch(`http://127.0.0.1:${port}/corrupt`))).reason).toBe(
      'UNDECODABLE_BODY',
    );
  });
});

describe('GuardedFetcher.fetchService', () => {
  // No operator exceptions and only the standard ports: the service needs neither.
  const strict = () => fetcher({ allow: new Set(), ports: new Set([80, 443]) });

  it('sends a query that names a URL to the configured service', async () => {
    const url = new URL(`http://127.0.0.1:${port}/search`);
    url.searchParams.set('q', 'site:https://example.org');
    url.searchParams.set('format', 'json');
    const res = await strict().fetchService(url.href, { accept: 'application/json', 'x-api-key': 'k' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ q: 'site:https://example.org' });
    expect(seen.at(-1)!['x-api-key']).toBe('k');
  });

  it('reaches a loopback or private service host by name without CAIRN_FETCH_ALLOW', async () => {
    const res = await strict().fetchService(`http://search.test:${port}/search?q=x`, {});
    expect(JSON.parse(res.body.toString())).toEqual({ q: 'x' });
    expect(res.address).toBe('127.0.0.1');
  });

  it('still checks the scheme and headers, follows no redirects and keeps the caps', async () => {
    const f = strict();
    expect((await refusal(f.fetchService('ftp://search.test/', {}))).reason).toBe('SCHEME_NOT_ALLOWED');
    await expect(f.fetchService(`http://search.test:${port}/search?q=x`, { cookie: 'a' })).rejects.toThrow(
      /not an x- header/,
    );
    expect((await refusal(f.fetchService(`http://search.test:${port}/service-redirect`, {}))).reason).toBe(
      'TOO_MANY_REDIRECTS',
    );
    const small = fetcher({ allow: new Set(), maxBytes: 1_000 });
    expect((await refusal(small.fetchService(`http://search.test:${port}/big`, {}))).reason).toBe(
      'RESPONSE_TOO_LARGE',
    );
  });

  it('is no way around the checks for fetch callers', async () => {
    const f = strict();
    const options = { trustedService: true };
    expect((await refusal(f.fetch(`http://search.test:${port}/hello`, '*/*', 0, options))).reason).toBe(
      'PORT_NOT_ALLOWED',
    );
    const open = fetcher({ allow: new Set() });
    expect((await refusal(open.fetch(`http://search.test:${port}/hello`, '*/*', 0, options))).reason).toBe(
      'ADDRESS_NOT_PUBLIC',
    );
  });
});
