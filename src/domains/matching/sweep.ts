import { sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.ts';
import { beginMatchingWrite, expireRequests } from './changes.ts';

/**
 * Writes expired requests as STOPPED (EXPIRED), so matching_watch reports the expiry. Answers
 * already treat an open request past its expiry as stopped; this only makes it a recorded change.
 */
export async function sweepMatching(database: Database, now: Date): Promise<Record<string, number>> {
  const expired = await database.transaction(async (tx) => {
    await beginMatchingWrite(tx);
    return expireRequests(tx, sql`true`, now);
  });
  return { expired_requests: expired.length };
}
