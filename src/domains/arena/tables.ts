import { sql } from 'drizzle-orm';
import { check, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from '../../storage/columns.ts';

/**
 * The arena's tables (docs/arena.md). This first slice holds only the keys that sign scores.
 */

/** A public Ed25519 key as a JWK: what `/.well-known/jwks.json` publishes of it. */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

/**
 * The deployment's score-signing keys (Ed25519), shared by every replica. `kid` is the RFC 7638
 * thumbprint of the public key. The private key is sealed with the server secret
 * (kernel/seal.ts), never stored in clear. At most one key is ACTIVE (the partial unique index
 * lets replicas race to make the first one, and one wins); RETIRED keys sign nothing more but
 * stay published, so the scores they signed still verify.
 */
export const arenaSigningKeys = pgTable(
  'arena_signing_keys',
  {
    kid: text('kid').primaryKey(),
    publicJwk: jsonb('public_jwk').$type<PublicJwk>().notNull(),
    sealedPrivateKey: text('sealed_private_key').notNull(),
    status: text('status', { enum: ['ACTIVE', 'RETIRED'] }).notNull(),
    createdAt: ts('created_at').notNull(),
    retiredAt: ts('retired_at'),
  },
  (t) => [
    uniqueIndex('arena_signing_keys_one_active').on(t.status).where(sql`status = 'ACTIVE'`),
    check(
      'arena_signing_keys_retired_at',
      sql`(${t.status} = 'ACTIVE' and ${t.retiredAt} is null) or (${t.status} = 'RETIRED' and ${t.retiredAt} is not null)`,
    ),
  ],
);
