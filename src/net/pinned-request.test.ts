import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../test/support/net/fixture-site.ts';
import { type FetchPolicy, GuardedFetcher } from './guarded-fetch.ts';
import { pinnedGet } from './pinned-request.ts';
import type { NetRefusal } from './refusal.ts';
import type { Resolver } from './resolver.ts';

/** Every read lets go of its connection, however its body ends: read, refused, cut or dumped. */

// How many undici Agents pinnedGet made, and how many of them it let go (closed or destroyed).
const agents = vi.hoisted(() => ({ made: 0, released: 0, fakeBody: null as null | (() => unknown) }));
vi.mock('undici', async (importOriginal) => {
  const real = await importOriginal<typeof import('undici')>();
  class CountedAgent extends real.Agent {
    constructor(...args: ConstructorParameters<typeof real.Agent>) {
      super(...args);
      agents.made++;
    }
    #released = false;
    #release() {
      if (!this.#released) agents.released++;
      this.#released = true;
    }
    override close(...args: unknown[]) {
      this.#release();
      return (super.close as (...a: unknown[]) => Promise<void>)(...args);
    }
    override destroy(...args: unknown[]) {
      this.#release();
      return (super.destroy as (...a: unknown[]) => Promise<void>)(...args);
    }
  }
  // With fakeBody set, the request answers with that body instead of going out.
  const request = ((...args: Parameters<typeof real.request>) =>
    agents.fakeBody
      ? Promise.resolve({ statusCode: 200, headers: {}, body: agents.fakeBody() })
      : real.request(...args)) as typeof real.request;
  return { ...real, Agent: CountedAgent, request };
});

beforeEach(() => {
  agents.made = 0;
  agents.released = 0;
  agents.fakeBody = null;
});

let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite((req, res) => {
    const path = req.url ?? '/';
    if (path === '/small') return res.end('small');
    if (path === '/big') return res.end(Buffer.alloc(200_000, 'x'));
    // Small enough to arrive whole, with the connection kept alive, before the reader stops.
    if (path === '/medium') return res.end(Buffer.alloc(2_000, 'x'));
    // A redirect whose body is more than undici's dump() reads before destroying it.
    if (path === '/heavy-redirect')
      return res.writeHead(302, { location: '/small' }).end(Buffer.alloc(1_000_000));
    res.writeHead(404).end();
  });
});
afterAll(() => site.close());

function fetcher(over: Partial<FetchPolicy> = {}) {
  const loopback: Resolver = { addresses: async () => ['127.0.0.1'], txt: async () => [] };
  return new GuardedFetcher(loopback, {
    ports: new Set([80, 443, site.port]),
    allow: new Set([`fixture.test:${site.port}`]),
    timeoutMs: 2_000,
    maxBytes: 1_000_000,
    maxRedirects: 5,
    userAgent: 'CairnTest/1',
    ...over,
  });
}

/** Waits up to `ms` for the fixture to have no open connections; returns how many are left. */
async function openAfter(ms: number): Promise<number> {
  const until = Date.now() + ms;
  let open = await site.openConnections();
  while (open > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
    open = await site.openConnections();
  }
  expect(agents.released).toBe(agents.made);
  return open;
}

const url = (path: string) => `http://fixture.test:${site.port}${path}`;

describe('pinnedGet connection cleanup', () => {
  it('closes the connection after a body read to the end', async () => {
    expect((await fetcher().fetch(url('/small'))).body.toString()).toBe('small');
    expect(await openAfter(1_000)).toBe(0);
  });

  it('closes the connection of a body refused as too large', async () => {
    const out = await fetcher({ maxBytes: 1_000 })
      .fetch(url('/big'))
      .catch((err: NetRefusal) => err);
    expect((out as NetRefusal).reason).toBe('RESPONSE_TOO_LARGE');
    expect(await openAfter(1_000)).toBe(0);
  });

  it('closes the connection of a body that arrived whole but was refused as too large', async () => {
    const out = await fetcher({ maxBytes: 1_000 })
      .fetch(url('/medium'))
      .catch((err: NetRefusal) => err);
    expect((out as NetRefusal).reason).toBe('RESPONSE_TOO_LARGE');
    expect(await openAfter(1_000)).toBe(0);
  });

  it('closes the connection of a whole body cut short on purpose', async () => {
    const res = await fetcher().fetch(url('/medium'), '*/*', 0, { truncateAt: 100 });
    expect(res.body.length).toBe(100);
    expect(await openAfter(1_000)).toBe(0);
  });

  it('closes the connection of a body cut short on purpose', async () => {
    const res = await fetcher().fetch(url('/big'), '*/*', 0, { truncateAt: 100 });
    expect(res.body.length).toBe(100);
    expect(await openAfter(1_000)).toBe(0);
  });

  it('closes the connection of a redirect body dumped unread', async () => {
    expect((await fetcher().fetch(url('/heavy-redirect'))).body.toString()).toBe('small');
    expect(await openAfter(1_000)).toBe(0);
  });

  it('lets go of the dispatcher when a body ends with only a close', async () => {
    // A body destroyed without an error emits neither 'end' nor 'error', only 'close'.
    const body = new PassThrough();
    agents.fakeBody = () => body;
    const res = await pinnedGet({
      url: new URL('http://fixture.test/'),
      address: '127.0.0.1',
      accept: '*/*',
      userAgent: 'CairnTest/1',
      signal: AbortSignal.timeout(2_000),
      timeoutMs: 2_000,
    });
    expect(res.body).toBe(body);
    expect(agents).toMatchObject({ made: 1, released: 0 });
    body.destroy();
    await new Promise((r) => setImmediate(r));
    expect(agents).toMatchObject({ made: 1, released: 1 });
  });
});
