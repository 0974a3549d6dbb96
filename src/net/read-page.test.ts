import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsFixture, startDnsFixture } from '../../test/support/dns-fixture.ts';
import { type FixtureSite, startFixtureSite } from '../../test/support/net/fixture-site.ts';
import { type FetchPolicy, GuardedFetcher } from './guarded-fetch.ts';
import type { NetRefusal } from './refusal.ts';
import { OutboundResolver } from './resolver.ts';

/**
 * GuardedFetcher.readPage against one loopback server playing several origins (by Host header):
 * site.test has robots rules, gone.test has no robots.txt (404), down.test answers 500,
 * moved.test redirects its robots.txt to site.test's.
 */

let site: FixtureSite;
let dns: DnsFixture;
let origin: (host: string) => string;

const ROBOTS = 'User-agent: *\nDisallow: /\n\nUser-agent: CairnTest\nDisallow: /secret\nAllow: /\n';

beforeAll(async () => {
  site = await startFixtureSite((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0];
    const path = req.url ?? '/';
    if (path === '/robots.txt') {
      if (host === 'site.test') return res.writeHead(200, { 'content-type': 'text/plain' }).end(ROBOTS);
      if (host === 'zipped.test') {
        return res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(ROBOTS));
      }
      if (host === 'down.test') return res.writeHead(500).end();
      if (host === 'moved.test')
        return res.writeHead(301, { location: `${origin('site.test')}/robots.txt` }).end();
      return res.writeHead(404).end();
    }
    if (path === '/to-secret') return res.writeHead(302, { location: '/secret' }).end();
    if (path === '/to-login') return res.writeHead(302, { location: '/account/login' }).end();
    if (path === '/to-down') return res.writeHead(302, { location: `${origin('down.test')}/page` }).end();
    if (path === '/to-gone') return res.writeHead(302, { location: `${origin('gone.test')}/page` }).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<p>${host}${path}</p>`);
  });
  origin = (host) => `http://${host}:${site.port}`;
  dns = await startDnsFixture();
  for (const name of ['site.test', 'gone.test', 'down.test', 'moved.test', 'zipped.test']) {
    dns.records.set(name, { A: ['127.0.0.1'] });
  }
});
afterAll(async () => {
  await site.close();
  await dns.close();
});

function fetcher(over: Partial<FetchPolicy> = {}, now?: () => number) {
  const policy: FetchPolicy = {
    ports: new Set([80, 443, site.port]),
    allow: new Set(
      ['site.test', 'gone.test', 'down.test', 'moved.test', 'zipped.test'].map((h) => `${h}:${site.port}`),
    ),
    timeoutMs: 2_000,
    maxBytes: 1_000_000,
    maxRedirects: 5,
    userAgent: 'CairnTest/1 (+https://cairn.test/guide)',
    ...over,
  };
  return new GuardedFetcher(new OutboundResolver([dns.server]), policy, now ? { robots: { now } } : {});
}

async function refusal(p: Promise<unknown>): Promise<NetRefusal> {
  try {
    await p;
  } catch (err) {
    return err as NetRefusal;
  }
  throw new Error('expected a refusal');
}

const robotsReads = (host: string) =>
  site.requests.filter((r) => r.path === '/robots.txt' && r.headers.host === `${host}:${site.port}`).length;
const pageReads = (host: string, path: string) =>
  site.requests.filter((r) => r.path === path && r.headers.host === `${host}:${site.port}`).length;

describe('GuardedFetcher.readPage', () => {
  it("reads a page robots.txt allows for Cairn's product token, fetching robots.txt once for two reads", async () => {
    const f = fetcher();
    const before = robotsReads('site.test');
    const first = await f.readPage(`${origin('site.test')}/article`, 'text/html');
    const second = await f.readPage(`${origin('site.test')}/other`, 'text/html');
    expect(first.body.toString()).toBe('<p>site.test/article</p>');
    expect(second.status).toBe(200);
    expect(robotsReads('site.test') - before).toBe(1);
    const robotsRequest = site.requests.find((r) => r.path === '/robots.txt')!;
    expect(robotsRequest.headers.accept).toBe('text/plain');
  });

  it('refuses a path robots.txt disallows, naming the robots.txt, without requesting the page', async () => {
    const out = await refusal(fetcher().readPage(`${origin('site.test')}/secret/plans`, 'text/html'));
    expect(out).toMatchObject({
      reason: 'ROBOTS_DISALLOWED',
      details: { robots_url: `${origin('site.test')}/robots.txt`, robots_basis: 'RULES' },
    });
    expect(pageReads('site.test', '/secret/plans')).toBe(0);
  });

  it('refuses a redirect hop robots.txt disallows as out of scope', async () => {
    const out = await refusal(fetcher().readPage(`${origin('site.test')}/to-secret`, 'text/html'));
    expect(out).toMatchObject({
      reason: 'REDIRECT_OUT_OF_SCOPE',
      details: {
        cause: 'ROBOTS_DISALLOWED',
        redirect_target: `${origin('site.test')}/secret`,
        robots_url: `${origin('site.test')}/robots.txt`,
      },
    });
    expect(pageReads('site.test', '/secret')).toBe(0);
  });

  it('checks the robots.txt of each origin a redirect reaches', async () => {
    const out = await refusal(fetcher().readPage(`${origin('site.test')}/to-down`, 'text/html'));
    expect(out).toMatchObject({ reason: 'REDIRECT_OUT_OF_SCOPE', details: { cause: 'ROBOTS_DISALLOWED' } });
    const ok = await fetcher().readPage(`${origin('site.test')}/to-gone`, 'text/html');
    expect(ok.hops).toEqual([`${origin('site.test')}/to-gone`, `${origin('gone.test')}/page`]);
  });

  it('reads everything when robots.txt is missing (404)', async () => {
    const res = await fetcher().readPage(`${origin('gone.test')}/anything`, 'text/html');
    expect(res.body.toString()).toBe('<p>gone.test/anything</p>');
  });

  it('refuses everything while robots.txt answers 500, and asks again after a minute', async () => {
    let now = 1_000_000;
    const f = fetcher({}, () => now);
    const before = robotsReads('down.test');
    const out = await refusal(f.readPage(`${origin('down.test')}/page`, 'text/html'));
    expect(out).toMatchObject({
      reason: 'ROBOTS_DISALLOWED',
      details: { robots_url: `${origin('down.test')}/robots.txt`, robots_basis: 'UNREACHABLE' },
    });
    await refusal(f.readPage(`${origin('down.test')}/page`, 'text/html'));
    expect(robotsReads('down.test') - before).toBe(1);
    now += 61_000;
    await refusal(f.readPage(`${origin('down.test')}/page`, 'text/html'));
    expect(robotsReads('down.test') - before).toBe(2);
    expect(pageReads('down.test', '/page')).toBe(0);
  });

  it('follows a redirected robots.txt, and decodes a compressed one', async () => {
    const moved = await refusal(fetcher().readPage(`${origin('moved.test')}/secret`, 'text/html'));
    expect(moved.reason).toBe('ROBOTS_DISALLOWED');
    expect((await fetcher().readPage(`${origin('moved.test')}/open`, 'text/html')).status).toBe(200);
    const zipped = await refusal(fetcher().readPage(`${origin('zipped.test')}/secret`, 'text/html'));
    expect(zipped.reason).toBe('ROBOTS_DISALLOWED');
  });

  it('refuses sign-in surfaces before any request, and redirects to them', async () => {
    const count = site.requests.length;
    const login = await refusal(fetcher().readPage(`${origin('site.test')}/users/sign_in`, 'text/html'));
    expect(login.reason).toBe('SIGN_IN_SURFACE');
    expect(site.requests.length).toBe(count);
    const hop = await refusal(fetcher().readPage(`${origin('site.test')}/to-login`, 'text/html'));
    expect(hop).toMatchObject({
      reason: 'REDIRECT_OUT_OF_SCOPE',
      details: { cause: 'SIGN_IN_SURFACE', redirect_target: `${origin('site.test')}/account/login` },
    });
    expect(pageReads('site.test', '/account/login')).toBe(0);
  });

  it('applies every URL check to allowed hosts too', async () => {
    const f = fetcher();
    expect(
      (await refusal(f.readPage(`${origin('site.test')}/?next=%2F%2Fevil.example`, 'text/html'))).reason,
    ).toBe('NESTED_URL');
    expect((await refusal(f.readPage(`${origin('site.test')}/?token=abc`, 'text/html'))).reason).toBe(
      'CREDENTIALS_IN_URL',
    );
    expect((await refusal(f.readPage(`http://site.test:1234/`, 'text/html'))).reason).toBe(
      'PORT_NOT_ALLOWED',
    );
  });

  it('leaves the low-level fetch free of robots.txt, for domain verification', async () => {
    const res = await fetcher().fetch(`${origin('site.test')}/secret`, '*/*', 0);
    expect(res.status).toBe(200);
  });
});
