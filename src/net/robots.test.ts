import { describe, expect, it } from 'vitest';
import type { FetchOptions, FetchResult, RobotsSource } from './fetch-types.ts';
import { NetRefusal } from './refusal.ts';
import { productToken, ROBOTS_PARSE_LIMIT, RobotsCache } from './robots.ts';

/** A stand-in fetcher: answers robots.txt by origin, counting reads. */
class FakeSource implements RobotsSource {
  reads: Array<{ url: string; accept: string; maxRedirects: number; options?: FetchOptions }> = [];
  constructor(private readonly answer: (url: string) => Promise<Partial<FetchResult>>) {}
  async fetch(url: string, accept: string, maxRedirects: number, options?: FetchOptions) {
    this.reads.push({ url, accept, maxRedirects, ...(options ? { options } : {}) });
    const res = await this.answer(url);
    return {
      url,
      status: 200,
      headers: {},
      raw: Buffer.alloc(0),
      body: Buffer.alloc(0),
      hops: [url],
      address: '',
      ...res,
    };
  }
}

const rules = (text: string) => async () => ({ status: 200, body: Buffer.from(text) });
const status = (code: number) => async () => ({ status: code });
const u = (s: string) => new URL(s);

describe('productToken', () => {
  it('takes the product name of a User-Agent', () => {
    expect(productToken('Cairn/1.4.0 (+https://cairn.example/guide)')).toBe('Cairn');
    expect(productToken('CairnTest/1')).toBe('CairnTest');
  });
});

describe('RobotsCache', () => {
  it('reads <origin>/robots.txt as text/plain, following up to five redirects, up to the parse limit', async () => {
    const source = new FakeSource(rules('User-agent: *\nDisallow: /private\n'));
    const cache = new RobotsCache(source, 'Cairn/1');
    expect(await cache.check(u('https://a.example/private/x?y=1'))).toEqual({
      allowed: false,
      robotsUrl: 'https://a.example/robots.txt',
      basis: 'RULES',
    });
    expect((await cache.check(u('https://a.example/public'))).allowed).toBe(true);
    expect(source.reads).toEqual([
      {
        url: 'https://a.example/robots.txt',
        accept: 'text/plain',
        maxRedirects: 5,
        options: { truncateAt: ROBOTS_PARSE_LIMIT },
      },
    ]);
  });

  it("follows the group for Cairn's product token over the catch-all group", async () => {
    const cache = new RobotsCache(
      new FakeSource(rules('User-agent: *\nDisallow: /\n\nUser-agent: cairn\nDisallow: /drafts\n')),
      'Cairn/2.0 (+https://cairn.example)',
    );
    expect((await cache.check(u('https://a.example/article'))).allowed).toBe(true);
    expect((await cache.check(u('https://a.example/drafts/1'))).allowed).toBe(false);
  });

  it('allows all on a 4xx, disallows all on 5xx, 429 and unreachable', async () => {
    const page = u('https://a.example/x');
    for (const [answer, allowed] of [
      [status(404), true],
      [status(403), true],
      [status(500), false],
      [status(503), false],
      [status(429), false],
      [() => Promise.reject(new NetRefusal('TIMEOUT', 'slow')), false],
      [() => Promise.reject(new NetRefusal('CONNECTION_FAILED', 'reset')), false],
      [() => Promise.reject(new NetRefusal('REDIRECT_OUT_OF_SCOPE', 'away')), false],
      [() => Promise.reject(new NetRefusal('TOO_MANY_REDIRECTS', 'loop')), true],
    ] as const) {
      const cache = new RobotsCache(new FakeSource(answer), 'Cairn/1');
      expect((await cache.check(page)).allowed).toBe(allowed);
    }
  });

  it('passes on refusals about the origin itself, and does not remember them', async () => {
    let n = 0;
    const source = new FakeSource(async () => {
      n++;
      throw new NetRefusal('ADDRESS_NOT_PUBLIC', 'private');
    });
    const cache = new RobotsCache(source, 'Cairn/1');
    await expect(cache.check(u('https://a.example/'))).rejects.toMatchObject({
      reason: 'ADDRESS_NOT_PUBLIC',
    });
    await expect(cache.check(u('https://a.example/'))).rejects.toMatchObject({
      reason: 'ADDRESS_NOT_PUBLIC',
    });
    expect(n).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('keeps a read file a day and a failure a minute', async () => {
    let now = 0;
    let code = 200;
    const source = new FakeSource(async () => ({
      status: code,
      body: Buffer.from('User-agent: *\nAllow: /'),
    }));
    const cache = new RobotsCache(source, 'Cairn/1', { now: () => now });
    await cache.check(u('https://a.example/'));
    now = 23 * 3600_000;
    await cache.check(u('https://a.example/'));
    expect(source.reads.length).toBe(1);
    now = 25 * 3600_000;
    code = 500;
    expect((await cache.check(u('https://a.example/'))).allowed).toBe(false);
    expect(source.reads.length).toBe(2);
    now += 30_000;
    await cache.check(u('https://a.example/'));
    expect(source.reads.length).toBe(2);
    now += 31_000;
    code = 200;
    expect((await cache.check(u('https://a.example/'))).allowed).toBe(true);
    expect(source.reads.length).toBe(3);
  });

  it('shares one read between concurrent checks and forgets the least recently used origin', async () => {
    const source = new FakeSource(rules(''));
    const cache = new RobotsCache(source, 'Cairn/1', { maxOrigins: 2 });
    await Promise.all([cache.check(u('https://a.example/1')), cache.check(u('https://a.example/2'))]);
    expect(source.reads.length).toBe(1);
    await cache.check(u('https://b.example/'));
    await cache.check(u('https://a.example/'));
    await cache.check(u('https://c.example/'));
    expect(cache.size).toBe(2);
    await cache.check(u('https://a.example/'));
    expect(source.reads.map((r) => r.url)).toEqual([
      'https://a.example/robots.txt',
      'https://b.example/robots.txt',
      'https://c.example/robots.txt',
    ]);
    await cache.check(u('https://b.example/'));
    expect(source.reads.length).toBe(4);
  });
});
