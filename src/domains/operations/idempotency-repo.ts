import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import { idempotencyRecords } from './tables.ts';

interface RecordKey {
  agentId: string;
  operation: string;
  key: string;
}

/**
 * Claims a key inside the caller's transaction. On PostgreSQL a concurrent claim of the same
 * key waits here until the first transaction ends, then sees its committed record.
 */
export async function claimKey(ex: Executor, k: RecordKey, argsHash: string, now: Date): Promise<boolean> {
  const rows = await ex
    .insert(idempotencyRecords)
    .values({ ...k, argsHash, createdAt: now })
    .onConflictDoNothing()
    .returning({ key: idempotencyRecords.key });
  return rows.length === 1;
}

/** The first call's record: its arguments' hash and its result, parsed back in its own key order. */
export async function findRecord(ex: Executor, k: RecordKey) {
  const [row] = await ex
    .select({ argsHash: idempotencyRecords.argsHash, result: idempotencyRecords.result })
    .from(idempotencyRecords)
    .where(matches(k));
  return row ? { argsHash: row.argsHash, result: row.result === null ? null : JSON.parse(row.result) } : null;
}

/** Keeps the result as the JSON text it is answered with, so a replay serialises to the same bytes. */
export async function storeResult(ex: Executor, k: RecordKey, result: unknown): Promise<void> {
  await ex
    .update(idempotencyRecords)
    .set({ result: JSON.stringify(result) })
    .where(matches(k));
}

function matches(k: RecordKey) {
  return and(
    eq(idempotencyRecords.agentId, k.agentId),
    eq(idempotencyRecords.operation, k.operation),
    eq(idempotencyRecords.key, k.key),
  );
}
