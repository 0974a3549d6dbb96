import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { hashSecret, newId, newToken } from '../../../kernel/ids.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { lockedOne } from '../../../storage/locked.ts';
import { recordAudit } from '../audit.ts';
import { owners } from '../tables.ts';
import { IDENTITY_LIMITS } from './limits.ts';
import { ownerTokens } from './tables.ts';

/** The prefix of every owner token; what `/mcp` recognises to say where it works instead. */
export const OWNER_TOKEN_PREFIX = 'cd_own_';
/** How much of a token is kept in the clear to tell tokens apart: the prefix and four characters. */
const SHOWN_CHARS = OWNER_TOKEN_PREFIX.length + 4;
/** How stale last_used_at may get before a request writes it again. */
const TOUCH_MS = 60_000;
/** cd_own_ + 52 base32 characters (newToken). */
const TOKEN_SHAPE = /^cd_own_[a-z2-7]{52}$/;
const NO_CONTROLS = /^\P{Cc}*$/u;

/** An owner token as its owner sees it: never the secret, only its first characters. */
export interface OwnerTokenView {
  token_id: string;
  name: string;
  prefix: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  status: 'ACTIVE' | 'EXPIRED' | 'REVOKED';
}

/** A token just made: the secret is in this answer once and nowhere else. */
export interface IssuedOwnerToken extends OwnerTokenView {
  token: string;
}

/**
 * Issues an owner token (console session or the operator's CLI alike), recorded in the audit
 * log in the same transaction. Name: 1-100 characters on one line; days: 1-365.
 */
export async function issueOwnerToken(
  ex: Executor,
  ownerId: string,
  input: { name: string; days: number },
  now: Date,
): Promise<IssuedOwnerToken> {
  const name = input.name.trim();
  const max = IDENTITY_LIMITS.ownerTokenName.maxChars;
  if (name.length < 1 || name.length > max || !NO_CONTROLS.test(name)) {
    throw invalid('name', `The name must be 1-${max} characters on one line.`);
  }
  const range = IDENTITY_LIMITS.ownerTokenDays;
  if (!Number.isInteger(input.days) || input.days < range.min || input.days > range.max) {
    throw invalid('days', `Expiry must be ${range.min}-${range.max} days.`);
  }
  const token = newToken('own');
  const row = {
    id: newId('otk', now),
    ownerId,
    name,
    tokenHash: hashSecret(token),
    prefix: token.slice(0, SHOWN_CHARS),
    createdAt: now,
    expiresAt: new Date(now.getTime() + input.days * 86_400_000),
    lastUsedAt: null,
    revokedAt: null,
  };
  await ex.insert(ownerTokens).values(row);
  await recordAudit(
    ex,
    { ownerId, action: 'owner.token.create', subjectId: row.id, details: { name, days: input.days } },
    now,
  );
  return { ...present(row, now), token };
}

/** Owner API tokens: made from a console session (or the CLI), listed, revoked, and checked. */
export class OwnerTokenService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** A new token for the owner; the answer is the only place the secret ever appears. */
  async create(ownerId: string, input: { name: string; days: number }): Promise<IssuedOwnerToken> {
    return this.database.transaction((tx) => issueOwnerToken(tx, ownerId, input, this.clock.now()));
  }

  /** The owner's tokens, newest first, without any secret. */
  async list(ownerId: string): Promise<OwnerTokenView[]> {
    const rows = await this.database.db
      .select()
      .from(ownerTokens)
      .where(eq(ownerTokens.ownerId, ownerId))
      .orderBy(desc(ownerTokens.createdAt), desc(ownerTokens.id));
    const now = this.clock.now();
    return rows.map((r) => present(r, now));
  }

  /** Revokes one of the owner's own tokens; it fails from the very next request on. */
  async revoke(ownerId: string, tokenId: string): Promise<OwnerTokenView> {
    return this.database.transaction(async (tx) => {
      const now = this.clock.now();
      const row = await lockedOne(
        tx
          .select()
          .from(ownerTokens)
          .where(and(eq(ownerTokens.id, tokenId), eq(ownerTokens.ownerId, ownerId))),
        () => new DomainError('NOT_FOUND', `You have no owner token ${tokenId}.`),
      );
      if (row.revokedAt) return present(row, now);
      await tx.update(ownerTokens).set({ revokedAt: now }).where(eq(ownerTokens.id, tokenId));
      await recordAudit(tx, { ownerId, action: 'owner.token.revoke', subjectId: tokenId }, now);
      return present({ ...row, revokedAt: now }, now);
    });
  }

  /** The owner a bearer token stands for, or null when it is unknown, expired or revoked. */
  async authenticate(
    bearer: string,
  ): Promise<{ owner: { id: string; email: string }; tokenId: string } | null> {
    if (!TOKEN_SHAPE.test(bearer)) return null;
    const [row] = await this.database.db
      .select({
        id: ownerTokens.id,
        ownerId: ownerTokens.ownerId,
        email: owners.email,
        expiresAt: ownerTokens.expiresAt,
        lastUsedAt: ownerTokens.lastUsedAt,
      })
      .from(ownerTokens)
      .innerJoin(owners, eq(owners.id, ownerTokens.ownerId))
      .where(and(eq(ownerTokens.tokenHash, hashSecret(bearer)), isNull(ownerTokens.revokedAt)));
    const now = this.clock.now();
    if (!row || row.expiresAt <= now) return null;
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_MS) {
      await this.database.db.update(ownerTokens).set({ lastUsedAt: now }).where(eq(ownerTokens.id, row.id));
    }
    return { owner: { id: row.ownerId, email: row.email }, tokenId: row.id };
  }
}

function present(row: typeof ownerTokens.$inferSelect, now: Date): OwnerTokenView {
  return {
    token_id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    status: row.revokedAt ? 'REVOKED' : row.expiresAt <= now ? 'EXPIRED' : 'ACTIVE',
  };
}

function invalid(field: string, message: string): DomainError {
  return new DomainError('VALIDATION_FAILED', message, {
    detail: [{ loc: ['body', field], msg: message, type: 'invalid' }],
  });
}
