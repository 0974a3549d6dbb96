import { and, eq, gt, inArray, isNull, max, sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import { ownerSessions, owners, signinThrottle } from './tables.ts';

/** SQL for owners' console accounts: credentials, console sessions and the sign-in throttle. */

/** A fixed key for the advisory lock that serialises "is this the first owner?" decisions. */
const SIGNUP_LOCK_KEY = 7_305_010_001;

/** Timestamps travel as ISO text cast in SQL, so both drivers (pg, PGlite) read them alike. */
const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;

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

/** The latest lock still in force on any of these throttle keys, or null. */
export async function activeLock(ex: Executor, keys: string[], now: Date): Promise<Date | null> {
  const [row] = await ex
    .select({ until: max(signinThrottle.lockedUntil) })
    .from(signinThrottle)
    .where(and(inArray(signinThrottle.key, keys), gt(signinThrottle.lockedUntil, now)));
  return row?.until ?? null;
}

/**
 * Counts one failed sign-in against a key in a single upsert, so concurrent failures on any
 * replica each count. A window that has passed (or a lock that has ended) starts over at 1;
 * reaching `max` within the window sets the lock. Returns the lock now in force, if any.
 */
export async function recordFailure(
  ex: Executor,
  key: string,
  now: Date,
  rule: { max: number; windowMs: number; lockMs: number },
): Promise<Date | null> {
  const t = signinThrottle;
  const stale = new Date(now.getTime() - rule.windowMs);
  const lockUntil = new Date(now.getTime() + rule.lockMs);
  const restart = sql`(${t.windowStartedAt} <= ${at(stale)} or coalesce(${t.lockedUntil} <= ${at(now)}, false))`;
  const failures = sql`(case when ${restart} then 1 else ${t.failures} + 1 end)`;
  const [row] = await ex
    .insert(t)
    .values({ key, failures: 1, windowStartedAt: now, lockedUntil: rule.max <= 1 ? lockUntil : null })
    .onConflictDoUpdate({
      target: t.key,
      set: {
        failures,
        windowStartedAt: sql`(case when ${restart} then ${at(now)} else ${t.windowStartedAt} end)`,
        lockedUntil: sql`(case when ${failures} >= ${rule.max} then ${at(lockUntil)}
          when ${restart} then null else ${t.lockedUntil} end)`,
      },
    })
    .returning({ lockedUntil: t.lockedUntil });
  return row?.lockedUntil && row.lockedUntil > now ? row.lockedUntil : null;
}

export async function clearThrottle(ex: Executor, key: string): Promise<void> {
  await ex.delete(signinThrottle).where(eq(signinThrottle.key, key));
}
