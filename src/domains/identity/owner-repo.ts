import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import { ownerSessions, owners } from './tables.ts';

/** SQL for owners' console accounts: credentials and console sessions. */

/** A fixed key for the advisory lock that serialises "is this the first owner?" decisions. */
const SIGNUP_LOCK_KEY = 7_305_010_001;

/** Timestamps travel as ISO text cast in SQL, so both drivers (pg, PGlite) read them alike. */
const _at = (d: Date) => sql`${d.toISOString()}::timestamptz`;

export async function findOwnerCredentials(ex: Executor, email: string) {
  const [row] = await ex
    .select({ id: owners.id, email: owners.email, passwordHash: owners.passwordHash })
    .from(owners)
    .where(sql`lower(${owners.email}) = lower(${email})`);
  return row ?? null;
}

export async function anyOwnerExists(ex: Executor): Promise<boolean> {
  const rows = await ex.select({ id: owners.id }).from(owners).limit(1);
  return rows.length > 0;
}

/** Held until the transaction ends: two first sign-ups at once cannot both see "no owner yet". */
export async function lockSignup(ex: Executor): Promise<void> {
  await ex.execute(sql`select pg_advisory_xact_lock(${SIGNUP_LOCK_KEY}::bigint)`);
}

export async function insertSession(
  ex: Executor,
  row: { id: string; ownerId: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await ex.insert(ownerSessions).values({ ...row, lastSeenAt: row.createdAt });
}

/** The unended, unexpired session with this id, with its owner; null otherwise. */
export async function findLiveSession(ex: Executor, id: string, now: Date) {
  const [row] = await ex
    .select({
      id: ownerSessions.id,
      ownerId: ownerSessions.ownerId,
      email: owners.email,
      createdAt: ownerSessions.createdAt,
      lastSeenAt: ownerSessions.lastSeenAt,
    })
    .from(ownerSessions)
    .innerJoin(owners, eq(owners.id, ownerSessions.ownerId))
    .where(and(eq(ownerSessions.id, id), isNull(ownerSessions.endedAt), gt(ownerSessions.expiresAt, now)));
  return row ?? null;
}

export async function touchSession(ex: Executor, id: string, now: Date, expiresAt: Date): Promise<void> {
  await ex.update(ownerSessions).set({ lastSeenAt: now, expiresAt }).where(eq(ownerSessions.id, id));
}

export async function endSession(ex: Executor, id: string, now: Date): Promise<void> {
  await ex
    .update(ownerSessions)
    .set({ endedAt: now })
    .where(and(eq(ownerSessions.id, id), isNull(ownerSessions.endedAt)));
}
