import { and, eq, type Placeholder, sql } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import { preparedStatement } from '../../storage/prepared.ts';
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
  const rows = await claimStatement(ex, { ...k, argsHash, createdAt: now });
  return rows.length === 1;
}

// Every mutation claims its key and stores its result: both statements are prepared.
const claimStatement = preparedStatement('cairn_idempotency_claim', (ex) =>
  ex
    .insert(idempotencyRecords)
    .values({
      agentId: sql.placeholder('agentId'),
      operation: sql.placeholder('operation'),
      key: sql.placeholder('key'),
      argsHash: sql.placeholder('argsHash'),
      createdAt: sql.placeholder('createdAt'),
    })
    .onConflictDoNothing()
    .returning({ key: idempotencyRecords.key }),
);

const storeStatement = preparedStatement('cairn_idempotency_store', (ex) =>
  ex
    .update(idempotencyRecords)
    .set({ result: sql`${sql.placeholder('result')}` })
    .where(
      matches({
        agentId: sql.placeholder('agentId'),
        operation: sql.placeholder('operation'),
        key: sql.placeholder('key'),
      }),
    ),
);

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
  await storeStatement(ex, { ...k, result: JSON.stringify(result) });
}

/**
 * Runs `fn` once per key, in the caller's transaction: the first call's result is stored with its
 * arguments' hash; a repeat with the same arguments returns that result without running `fn`,
 * with other arguments it is IDEMPOTENCY_KEY_REUSED. The runner does this for every mutating
 * operation; a `writes` tool with one mutating action (arena_publications CREATE) does it itself.
 */
export async function runOnce(
  ex: Executor,
  k: RecordKey,
  argsHash: string,
  now: Date,
  fn: () => Promise<unknown>,
): Promise<unknown> {
  if (!(await claimKey(ex, k, argsHash, now))) {
    const first = await findRecord(ex, k);
    if (!first || first.argsHash !== argsHash) {
      throw new DomainError(
        'IDEMPOTENCY_KEY_REUSED',
        `This idempotency_key was already used for ${k.operation} with different arguments.`,
        { tool: k.operation },
      );
    }
    return first.result;
  }
  const result = await fn();
  await storeResult(ex, k, result ?? null);
  return result;
}

function matches(k: { [K in keyof RecordKey]: string | Placeholder }) {
  return and(
    eq(idempotencyRecords.agentId, k.agentId),
    eq(idempotencyRecords.operation, k.operation),
    eq(idempotencyRecords.key, k.key),
  );
}
