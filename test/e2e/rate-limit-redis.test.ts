import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../support/test-server.ts';

/** Shared rate-limit counters: two replicas on one Redis count one client together. */

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl)
  console.log('skipped: set TEST_REDIS_URL (e.g. redis://127.0.0.1:6379) to test shared rate limits');

describe.skipIf(!redisUrl)('rate limits with CAIRN_REDIS_URL', () => {
  it('count a client across replicas', async () => {
    const env = { CAIRN_REDIS_URL: redisUrl!, CAIRN_PUBLIC_RATE_LIMIT: '3', CAIRN_TRUST_PROXY: 'true' };
    const a = await startTestServer({ env });
    const b = await startTestServer({ env, database: a.database });
    try {
      // A fresh client address per run, so counters left by an earlier run cannot interfere.
      const client = `198.18.${randomInt(256)}.${randomInt(256)}`;
      const hit = (url: string) =>
        fetch(`${url}/v1/public/terms`, { headers: { 'x-forwarded-for': client } }).then((r) => r.status);
      expect([await hit(a.url), await hit(b.url), await hit(a.url)]).toEqual([200, 200, 200]);
      expect(await hit(b.url)).toBe(429);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
