import { createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { calculateJwkThumbprint } from 'jose';
import type { Clock } from '../../kernel/clock.ts';
import { sealJson, unsealJson } from '../../kernel/seal.ts';
import type { Database, Executor } from '../../storage/database.ts';
import type { ScoreSigningKey } from './scores/signing.ts';
import { arenaSigningKeys, type PublicJwk } from './tables.ts';

/**
 * The deployment's score-signing keys (docs/arena.md, "Key rotation"). The database is the only
 * truth, so every replica signs with the same ACTIVE key: a replica reads it at each signature
 * (a rotation by `cairn arena rotate-key` takes effect on every replica at once) and keeps only
 * the private keys it has already unsealed, by kid.
 */

/** What the sealed private key holds; `purpose` and `kid` tie the sealed value to its row. */
interface SealedKey {
  purpose: 'arena-score-signing';
  kid: string;
  jwk: JsonWebKey;
}

/** One key as `/.well-known/jwks.json` publishes it. */
export interface PublishedJwk extends PublicJwk {
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** How often `active()` retries when replicas keep replacing each other's key (different secrets). */
const ATTEMPTS = 5;

/** No key this server can unseal: replicas with different server secrets keep replacing it. */
export class KeyChurnError extends Error {}

type KeyRow = typeof arenaSigningKeys.$inferSelect;

interface FreshKey {
  kid: string;
  publicJwk: PublicJwk;
  privateJwk: JsonWebKey;
}

/** A new Ed25519 key pair (node:crypto) and its RFC 7638 thumbprint (base64url SHA-256). */
export async function newSigningKey(): Promise<FreshKey & { privateKey: KeyObject }> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' });
  if (!x) throw new Error('Ed25519 public key without x');
  const publicJwk: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x };
  return {
    kid: await calculateJwkThumbprint(publicJwk, 'sha256'),
    publicJwk,
    privateJwk: privateKey.export({ format: 'jwk' }),
    privateKey,
  };
}

/** A public key as the JWKS publishes it. */
export function publishedJwk(kid: string, jwk: PublicJwk): PublishedJwk {
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid, alg: 'EdDSA', use: 'sig' };
}

export class ArenaKeys {
  private readonly opened = new Map<string, KeyObject>();

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    /** The server secret the private keys are sealed with (shared by every replica). */
    private readonly secret: string,
    /** Told when the ACTIVE key could not be unsealed and was replaced. */
    private readonly onReplaced: (kid: string) => void = () => {},
  ) {}

  /**
   * The ACTIVE key, unsealed. Makes one when there is none (replicas racing here make exactly
   * one: the partial unique index refuses a second ACTIVE row and the losers read the winner's).
   * A key this server's secret cannot open (the secret changed) is retired, still published,
   * and replaced. `ex` is the caller's transaction when it signs inside one (result_verify).
   */
  async active(ex: Executor = this.database.db): Promise<ScoreSigningKey> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const row = (await this.readActive(ex)) ?? (await this.insertActive(ex));
      if (!row) continue;
      const privateKey = this.open(row);
      if (privateKey) return { kid: row.kid, privateKey };
      const retired = await ex
        .update(arenaSigningKeys)
        .set({ status: 'RETIRED', retiredAt: this.clock.now() })
        .where(and(eq(arenaSigningKeys.kid, row.kid), eq(arenaSigningKeys.status, 'ACTIVE')))
        .returning({ kid: arenaSigningKeys.kid });
      if (retired.length > 0) this.onReplaced(row.kid);
    }
    throw new KeyChurnError(
      'No arena signing key this server can unseal: replicas with different server secrets keep replacing it (CAIRN_SECRET must be the same on every replica).',
    );
  }

  /**
   * Retires the ACTIVE key and makes a new one (`cairn arena rotate-key`). The retired key stays
   * published, so the scores it signed still verify. Two rotations at once make one new key.
   */
  async rotate(): Promise<{ retired_kids: string[]; kid: string }> {
    const fresh = await newSigningKey();
    const retired = await this.database.transaction(async (tx) => {
      const rows = await tx
        .update(arenaSigningKeys)
        .set({ status: 'RETIRED', retiredAt: this.clock.now() })
        .where(eq(arenaSigningKeys.status, 'ACTIVE'))
        .returning({ kid: arenaSigningKeys.kid });
      await tx.insert(arenaSigningKeys).values(this.rowOf(fresh)).onConflictDoNothing();
      return rows.map((r) => r.kid);
    });
    const { kid } = await this.active();
    return { retired_kids: retired, kid };
  }

  /** Every key, ACTIVE and RETIRED, newest first: the published JWKS. */
  async published(): Promise<PublishedJwk[]> {
    const rows = await this.database.db
      .select({ kid: arenaSigningKeys.kid, publicJwk: arenaSigningKeys.publicJwk })
      .from(arenaSigningKeys)
      .orderBy(desc(arenaSigningKeys.createdAt), arenaSigningKeys.kid);
    return rows.map((r) => publishedJwk(r.kid, r.publicJwk));
  }

  private async readActive(ex: Executor): Promise<KeyRow | null> {
    const [row] = await ex.select().from(arenaSigningKeys).where(eq(arenaSigningKeys.status, 'ACTIVE'));
    return row ?? null;
  }

  /** Inserts a fresh ACTIVE key unless another replica got there first; the ACTIVE row either way. */
  private async insertActive(ex: Executor): Promise<KeyRow | null> {
    const fresh = await newSigningKey();
    await ex.insert(arenaSigningKeys).values(this.rowOf(fresh)).onConflictDoNothing();
    return this.readActive(ex);
  }

  private rowOf(fresh: FreshKey): typeof arenaSigningKeys.$inferInsert {
    const sealed: SealedKey = { purpose: 'arena-score-signing', kid: fresh.kid, jwk: fresh.privateJwk };
    return {
      kid: fresh.kid,
      publicJwk: fresh.publicJwk,
      sealedPrivateKey: sealJson(this.secret, sealed),
      status: 'ACTIVE',
      createdAt: this.clock.now(),
    };
  }

  /** The row's private key, or null when this secret cannot open it or it is not the row's key. */
  private open(row: KeyRow): KeyObject | null {
    const known = this.opened.get(row.kid);
    if (known) return known;
    let sealed: SealedKey;
    try {
      sealed = unsealJson<SealedKey>(this.secret, row.sealedPrivateKey);
    } catch {
      return null;
    }
    if (
      sealed.purpose !== 'arena-score-signing' ||
      sealed.kid !== row.kid ||
      sealed.jwk.x !== row.publicJwk.x
    ) {
      return null;
    }
    const privateKey = createPrivateKey({ key: sealed.jwk, format: 'jwk' });
    this.opened.set(row.kid, privateKey);
    return privateKey;
  }
}
