import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { compactVerify, createLocalJWKSet, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SignedScorePayload } from '../../src/domains/arena/index.ts';
import { unsealJson } from '../../src/kernel/seal.ts';
import { cairnCli, seedDataDir } from '../support/cairn-cli.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { type Replica, startReplica } from '../support/replicas.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 21 item 5, the signed-score foundation, through the real server and the real `cairn`
 * command: the published JWKS, the sealed key, replicas agreeing on one key, the operator's
 * rotation, and offline verification. On PostgreSQL every part runs on databases of this file's
 * own (a key made under this file's secret would otherwise replace the shared database's).
 */

// Real processes (tsx compiles the sources, PGlite or the replicas start): more time than most.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const url = process.env.TEST_DATABASE_URL;
const SECRET = 'arena-keys-e2e-secret-0123456789abcdefgh';
let own: OwnDatabase | undefined;
let server: TestServer;
let dir: string;
const cli = cairnCli(() => path.join(dir, 'data'));

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-arena-'));
  await seedDataDir(path.join(dir, 'data'));
  own = url ? await ownDatabase('cairn_arena_e2e', url) : undefined;
  server = await startTestServer({
    env: { CAIRN_SECRET: SECRET },
    ...(own ? { database: own.database } : {}),
  });
});
afterAll(async () => {
  await server?.close();
  await own?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const score = (overrides: Partial<SignedScorePayload> = {}): SignedScorePayload => ({
  run_id: 'arn_01JZ8Y0V6M1C9Q4T5W6X7Y8Z9A',
  challenge_id: 'quote-hunt',
  challenge_version: 1,
  agent_id: null,
  score: 4,
  max_score: 5,
  rubric: [{ id: 'quote', points: 4, max_points: 5, note: 'one word off' }],
  world_sha256: 'c'.repeat(64),
  artifacts: [{ name: 'answer.txt', sha256: 'd'.repeat(64) }],
  verified_at: '2026-02-01T10:00:00.000Z',
  ...overrides,
});

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely
type Json = Record<string, any>;

const getJwks = async (base = server.url) => {
  const res = await fetch(`${base}/.well-known/jwks.json`, {
    headers: { origin: 'https://verifier.example' },
  });
  return { res, body: (await res.json()) as { keys: Json[] } };
};

/** The score with one byte of its payload changed (the score 4 becomes 5). */
function tampered(jws: string): string {
  const [header, payload, signature] = jws.split('.') as [string, string, string];
  const text = Buffer.from(payload, 'base64url').toString('utf8').replace('"score":4', '"score":5');
  return `${header}.${Buffer.from(text).toString('base64url')}.${signature}`;
}

const write = (name: string, content: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
};

describe('the published keys', () => {
  it('GET /.well-known/jwks.json serves the key that signs, without a token, cached for five minutes', async () => {
    const jws = await server.app.services.arenaScores.sign(score());
    const { res, body } = await getJwks();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const kid = decodeProtectedHeader(jws).kid;
    expect(body.keys.map((k) => k.kid)).toContain(kid);
    for (const key of body.keys) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
      expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    }
    // Any verifier with jose and the published set checks it.
    const { payload } = await compactVerify(jws, createLocalJWKSet(body as never));
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual(score());
  });

  it('stores the private key sealed with the server secret, never in clear', async () => {
    const kid = String(decodeProtectedHeader(await server.app.services.arenaScores.sign(score())).kid);
    const rows = (await server.database.db.execute(
      sql`select * from arena_signing_keys where kid = ${kid}`,
    )) as unknown as { rows: Json[] };
    const row = rows.rows[0];
    expect(row?.status).toBe('ACTIVE');
    const sealed = unsealJson<{ jwk: { d: string } }>(SECRET, String(row?.sealed_private_key));
    expect(sealed.jwk.d).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(row)).not.toContain(sealed.jwk.d);
  });
});

describe('cairn arena verify-score', () => {
  it('accepts a score the server signed, with the JWKS from a file, a URL or the base URL', async () => {
    const jws = await server.app.services.arenaScores.sign(score());
    const { body } = await getJwks();
    const jwksFile = write('jwks.json', JSON.stringify(body));
    const scoreFile = write('score.jws', `${jws}\n`);
    const answerFile = write('answer.json', JSON.stringify({ score: 4, signed_score: jws }));

    const offline = await cli.run(['arena', 'verify-score', scoreFile, '--jwks', jwksFile, '--json']);
    expect(offline.stderr).toBe('');
    expect(offline.code).toBe(0);
    expect(JSON.parse(offline.stdout)).toEqual({
      valid: true,
      kid: decodeProtectedHeader(jws).kid,
      payload: score(),
    });

    const byUrl = await cli.run([
      'arena',
      'verify-score',
      answerFile,
      '--jwks',
      `${server.url}/.well-known/jwks.json`,
      '--json',
    ]);
    expect(byUrl.code).toBe(0);
    expect(JSON.parse(byUrl.stdout).payload).toEqual(score());

    const byBase = await cli.run(['arena', 'verify-score', scoreFile], {
      env: { CAIRN_BASE_URL: server.url },
    });
    expect(byBase.code).toBe(0);
    expect(byBase.stdout).toContain('valid: true');
    expect(byBase.stdout).toContain('"challenge_id":"quote-hunt"');
  });

  it('refuses a tampered score, and one whose key is not in the JWKS, with the reason and exit 1', async () => {
    const jws = await server.app.services.arenaScores.sign(score());
    const { body } = await getJwks();
    const jwksFile = write('jwks-2.json', JSON.stringify(body));
    const changed = await cli.run([
      'arena',
      'verify-score',
      write('bad.jws', tampered(jws)),
      '--jwks',
      jwksFile,
    ]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toBe('');
    expect(changed.stderr).toMatch(/does not verify: the signature does not match/);

    const noKeys = write('empty-jwks.json', JSON.stringify({ keys: [] }));
    const unknown = await cli.run([
      'arena',
      'verify-score',
      write('good.jws', jws),
      '--jwks',
      noKeys,
      '--json',
    ]);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({
      code: 'SCORE_SIGNATURE_INVALID',
      details: { reason: expect.stringMatching(/no key of the JWKS has its kid/) },
    });

    const missing = await cli.run(['arena', 'verify-score', path.join(dir, 'nothing.jws'), '--jwks', noKeys]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot be read: ENOENT/);
  });
});

describe('cairn arena rotate-key', () => {
  it('retires the active key and makes a new one, each time', async () => {
    // Against the file's own database: the live server's on PostgreSQL, a data dir of its own on PGlite.
    const env: Record<string, string> = own
      ? { DATABASE_URL: own.url, CAIRN_SECRET: SECRET }
      : { CAIRN_SECRET: SECRET };
    const before = own
      ? String(decodeProtectedHeader(await server.app.services.arenaScores.sign(score())).kid)
      : null;
    const first = await cli.run(['arena', 'rotate-key', '--json'], { env });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const one = JSON.parse(first.stdout) as { retired_kids: string[]; kid: string };
    expect(one.retired_kids).toEqual(before ? [before] : []);
    const second = await cli.run(['arena', 'rotate-key', '--json'], { env });
    const two = JSON.parse(second.stdout) as { retired_kids: string[]; kid: string };
    expect(two.retired_kids).toEqual([one.kid]);
    expect(two.kid).not.toBe(one.kid);
    if (!own || !before) return;
    // The live server signs with the operator's new key at once, and publishes every key.
    const jws = await server.app.services.arenaScores.sign(score());
    expect(decodeProtectedHeader(jws).kid).toBe(two.kid);
    const { body } = await getJwks();
    expect(body.keys.map((k) => k.kid).slice(0, 3)).toEqual([two.kid, one.kid, before]);
  });
});

describe.skipIf(!url)('replicas over one PostgreSQL database', () => {
  let race: OwnDatabase;
  let replicas: Replica[] = [];
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop(2_000)));
    await race?.drop();
  });

  it('agree on one key when they start together on a new database', async () => {
    race = await ownDatabase('cairn_arena_race', String(url));
    replicas = await Promise.all([startReplica(race.url, SECRET), startReplica(race.url, SECRET)]);
    const [a, b] = await Promise.all(replicas.map((r) => getJwks(r.url)));
    expect(a?.body.keys).toHaveLength(1);
    expect(b?.body).toEqual(a?.body);
    const stored = await race.audit<{ status: string }>(sql`select status from arena_signing_keys`);
    expect(stored).toEqual([{ status: 'ACTIVE' }]);
  });
});
