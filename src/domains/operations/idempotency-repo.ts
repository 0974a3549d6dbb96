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

export async function findRecord(ex: Executor, k: RecordKey) {
  const [row] = await ex
    .select({ argsHash: idempotencyRecords.argsHash, result: idempotencyRecords.result })
    .from(idempotencyRecords)
    .where(matches(k));
  return row ?? null;
}

export async function storeResult(ex: Executor, k: RecordKey, result: unknown): Promise<void> {
  await ex.update(idempotencyRecords).set({ result }).where(matches(k));
}

function matches(k: RecordKey) {
  return and(
    eq(idempotencyRecords.agentId, k.agentId),
    eq(idempotencyRecords.operation, k.operation),
    eq(idempotencyRecords.key, k.key),
  );
}
