import { and, eq, gt, inArray, max, sql } from 'drizzle-orm';
import type { Clock } from '../../kernel/clock.ts';
import type { Database, Executor } from '../../storage/database.ts';
import { signinThrottle } from './tables.ts';

/**
 * Failures counted per key in the database, so every replica sees the same counts: wrong
 * console passwords, pairing codes that match nothing, wrong client and bootstrap secrets. Past
 * a rule's `max` within its window, the key is locked for `lockMs`.
 */

export interface ThrottleRule {
  max: number;
  windowMs: number;
  lockMs: number;
}

/** Timestamps travel as ISO text cast in SQL, so both drivers (pg, PGlite) read them alike. */
const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;

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

/** Whole seconds from now until a lock ends (at least 1), for Retry-After. */
export function secondsUntil(until: Date, now: Date): number {
  return Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
}

/** Checks and counts failures against a set of keys, each with its own rule. */
export class FailureThrottle {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** The latest lock in force on any key, or null. */
  lockedUntil(keys: string[]): Promise<Date | null> {
    return activeLock(this.database.db, keys, this.clock.now());
  }

  /** Counts one failure against every key, in one transaction; returns the latest lock now in force. */
  async fail(entries: Array<{ key: string; rule: ThrottleRule }>): Promise<Date | null> {
    const now = this.clock.now();
    const locks = await this.database.transaction(async (tx) => {
      const found: Array<Date | null> = [];
      for (const { key, rule } of entries) found.push(await recordFailure(tx, key, now, rule));
      return found;
    });
    return locks.reduce<Date | null>(
      (latest, lock) => (lock && (!latest || lock > latest) ? lock : latest),
      null,
    );
  }

  clear(key: string): Promise<void> {
    return clearThrottle(this.database.db, key);
  }
}
