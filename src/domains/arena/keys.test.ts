import { eq } from 'drizzle-orm';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/support/database.ts';
import { type OwnDatabase, ownDatabase } from '../../../test/support/own-database.ts';
import { FakeClock } from '../../kernel/clock.ts';
import { unsealJson } from '../../kernel/seal.ts';
import type { Database } from '../../storage/database.ts';
import { ArenaKeys } from './keys.ts';
import { sampleScore } from './scores/fixtures.ts';
import { ArenaScores } from './scores/score-service.ts';
import { verifyScore } from './scores/signing.ts';
import { arenaSigningKeys } from './tables.ts';

/**
 * The keys over a real database of this file's own (a PGlite copy, or a PostgreSQL database made
 * for it), since every test here counts the keys that exist.
 */

const SECRET = 'arena-keys-test-secret-0123456789abcdef';
const clock = new FakeClock();
let own: OwnDatabase | undefined;
let database: Database;

beforeAll(async () => {
  const url = process.env.TEST_DATABASE_URL;
  own = url ? await ownDatabase('cairn_arena_keys', url, 6) : undefined;
  database = own?.database ?? (await openTestDatabase());
});
afterAll(async () => {
  if (own) await own.drop();
  else await database?.close();
});

const rows = () => database.db.select().from(arenaSigningKeys);
const kidOf = (jws: string) => decodeProtectedHeader(jws).kid;

describe('arena signing keys', () => {
  it('are made once, however many replicas start at the same moment', async () => {
    const replicas = Array.from({ length: 6 }, () => new ArenaKeys(database, clock, SECRET));
    const keys = await Promise.all(replicas.map((r) => r.active()));
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    const stored = await rows();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ kid: keys[0]?.kid, status: 'ACTIVE', retiredAt: null });
  });

  it('keep the private key sealed with the server secret, never in clear', async () => {
    const [row] = await rows();
    if (!row) throw new Error('no key');
    const sealed = unsealJson<{ jwk: { d: string; x: string } }>(SECRET, row.sealedPrivateKey);
    expect(sealed.jwk.d).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sealed.jwk.x).toBe(row.publicJwk.x);
    expect(JSON.stringify(row)).not.toContain(sealed.jwk.d);
    expect(row.publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: row.publicJwk.x });
    expect(() => unsealJson('another secret', row.sealedPrivateKey)).toThrow();
  });

  it('rotate: the new key signs on every replica at once, and old scores still verify', async () => {
    const a = new ArenaScores(new ArenaKeys(database, clock, SECRET));
    const b = new ArenaScores(new ArenaKeys(database, clock, SECRET));
    const before = await a.sign(sampleScore());
    expect(kidOf(await b.sign(sampleScore()))).toBe(kidOf(before));

    clock.advance(1_000);
    const rotated = await new ArenaKeys(database, clock, SECRET).rotate();
    expect(rotated.retired_kids).toEqual([kidOf(before)]);
    expect(rotated.kid).not.toBe(kidOf(before));

    // Neither replica caches the active key: both sign with the new one at once.
    const afterA = await a.sign(sampleScore({ score: 9 }));
    const afterB = await b.sign(sampleScore({ score: 8 }));
    expect([kidOf(afterA), kidOf(afterB)]).toEqual([rotated.kid, rotated.kid]);

    const jwks = await b.jwks();
    expect(jwks.keys.map((k) => k.kid)).toEqual([rotated.kid, kidOf(before)]);
    for (const k of jwks.keys)
      expect(k).toEqual({ kty: 'OKP', crv: 'Ed25519', x: k.x, kid: k.kid, alg: 'EdDSA', use: 'sig' });
    expect(await verifyScore(before, jwks)).toEqual(sampleScore());
    expect((await verifyScore(afterA, jwks)).score).toBe(9);

    const retired = await database.db
      .select()
      .from(arenaSigningKeys)
      .where(eq(arenaSigningKeys.kid, String(kidOf(before))));
    expect(retired[0]).toMatchObject({ status: 'RETIRED', retiredAt: clock.now() });
  });

  it('retire a key the server secret cannot open any more, keep it published, and make a new one', async () => {
    const old = await new ArenaScores(new ArenaKeys(database, clock, SECRET)).sign(sampleScore());
    const replaced: string[] = [];
    const changed = new ArenaScores(
      new ArenaKeys(database, clock, 'a changed server secret', (kid) => replaced.push(kid)),
    );
    const fresh = await changed.sign(sampleScore({ score: 3 }));
    expect(replaced).toEqual([kidOf(old)]);
    expect(kidOf(fresh)).not.toBe(kidOf(old));
    const active = (await rows()).filter((r) => r.status === 'ACTIVE');
    expect(active.map((r) => r.kid)).toEqual([kidOf(fresh)]);
    const jwks = await changed.jwks();
    expect(jwks.keys.map((k) => k.kid)).toContain(kidOf(old));
    expect(await verifyScore(old, jwks)).toEqual(sampleScore());
    expect((await verifyScore(fresh, jwks)).score).toBe(3);
  });
});
