import { inArray, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import type { RequestState, StopReason } from './states.ts';
import { matchingChanges, matchingRequests } from './tables.ts';

/** The channel matching_watch LISTENs on; every change wakes every watcher, who re-reads its own. */
export const MATCHING_CHANNEL = 'cairn_matching';
export const MATCHING_WAKE_KEY = 'all';

/**
 * Every matching write takes this transaction lock before anything else, so change ids are handed
 * out in commit order (a watcher that has seen id N never later finds a smaller one) and no two
 * writers can wait on each other's request rows. Matching is low-volume: one short lock per
 * decision is cheap. Taken first, it never forms a cycle with campaigns' row locks.
 */
const CHANGES_LOCK = 0x6d617463; // "matc"

export async function beginMatchingWrite(ex: Executor): Promise<void> {
  await ex.execute(sql`select pg_advisory_xact_lock(${CHANGES_LOCK})`);
}

/** Records that requests changed, in the caller's transaction, and wakes watchers at commit. */
export async function recordChanges(
  ex: Executor,
  changes: Array<{ requestId: string; state: RequestState }>,
  now: Date,
): Promise<void> {
  if (changes.length === 0) return;
  await beginMatchingWrite(ex);
  await ex.insert(matchingChanges).values(changes.map((c) => ({ ...c, at: now })));
  await ex.execute(sql`select pg_notify(${MATCHING_CHANNEL}, ${MATCHING_WAKE_KEY})`);
}

export const OPEN_STATES = ['PROPOSED', 'TENTATIVE'] as const;
export const isOpen = (state: RequestState) => state === 'PROPOSED' || state === 'TENTATIVE';

/** Stops every open request that matches `condition`, recording each; returns their ids. */
export async function stopOpenRequests(
  ex: Executor,
  condition: SQL,
  reason: StopReason,
  now: Date,
): Promise<string[]> {
  const stopped = await ex
    .update(matchingRequests)
    .set({ state: 'STOPPED', waitingFor: null, stopReason: reason, endedAt: now, updatedAt: now })
    .where(sql`${inArray(matchingRequests.state, [...OPEN_STATES])} and (${condition})`)
    .returning({ id: matchingRequests.id });
  await recordChanges(
    ex,
    stopped.map((r) => ({ requestId: r.id, state: 'STOPPED' as const })),
    now,
  );
  return stopped.map((r) => r.id);
}

/** Open requests past their expiry become STOPPED (EXPIRED): lazily before a decision, and by the sweep. */
export async function expireRequests(ex: Executor, condition: SQL, now: Date): Promise<string[]> {
  return stopOpenRequests(
    ex,
    sql`${matchingRequests.expiresAt} <= ${now} and (${condition})`,
    'EXPIRED',
    now,
  );
}
