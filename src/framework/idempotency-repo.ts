import { randomBytes } from 'node:crypto';
import { and, eq, type Placeholder, type SQL, sql } from 'drizzle-orm';
import { DomainError } from '../kernel/errors.ts';
import type { BuiltStatement, Executor, TransactionEnd } from '../storage/database.ts';
import { preparedStatement } from '../storage/prepared.ts';
import { statementTemplate } from '../storage/statement-template.ts';
import { CommitValue } from './commit-value.ts';
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
async function claimKey(ex: Executor, k: RecordKey, argsHash: string, now: Date): Promise<boolean> {
  const rows = await claimStatement(ex, { ...k, argsHash, createdAt: now });
  return rows.length === 1;
}

// Each statement is built once with placeholders for the key and values: prepared where a tool
// keeps its key itself (runOnce), a template where the runner sends it with BEGIN or COMMIT.
const KEY = {
  agentId: sql.placeholder('agentId'),
  operation: sql.placeholder('operation'),
  key: sql.placeholder('key'),
};

/** The claim's insert: one row back when this call claimed the key, none when it was taken. */
function claimInsert(ex: Executor) {
  return ex
    .insert(idempotencyRecords)
    .values({ ...KEY, argsHash: sql.placeholder('argsHash'), createdAt: sql.placeholder('createdAt') })
    .onConflictDoNothing()
    .returning({ key: idempotencyRecords.key });
}

/** The result's store, returning what was stored. */
function storeUpdate(ex: Executor, result: SQL) {
  return ex
    .update(idempotencyRecords)
    .set({ result })
    .where(matches(KEY))
    .returning({ result: idempotencyRecords.result });
}

const claimStatement = preparedStatement('cairn_idempotency_claim', claimInsert);

const storeStatement = preparedStatement('cairn_idempotency_store', (ex) =>
  storeUpdate(ex, sql`${sql.placeholder('result')}`),
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
async function storeResult(ex: Executor, k: RecordKey, result: unknown): Promise<void> {
  await storeStatement(ex, { ...k, result: JSON.stringify(result) });
}

/**
 * The key's claim as the opening statement of the mutation's transaction (sent with its BEGIN):
 * one row when this call claimed the key, none when it was claimed before (runOnceClosing's
 * `claimed`). On PostgreSQL a concurrent claim of the same key waits here until the first
 * transaction ends, then finds the key taken.
 */
export function claimAtOpening(ex: Executor, k: RecordKey, argsHash: string, now: Date): BuiltStatement {
  return claimTemplate(ex, { ...k, argsHash, createdAt: now });
}

// Every mutation opens with it: built once, filled per call.
const claimTemplate = statementTemplate((ex: Executor) => claimInsert(ex).getSQL());

/**
 * What the runner does for every mutation: `runOnce`, with the key claimed by the opening
 * statement (`claimAtOpening`) and the answer stored by a closing
 * statement of the transaction (sent with its COMMIT: storage/transaction-end.ts). Resolves to
 * the answer to give once the transaction has committed: the stored one, read back, when it holds
 * values the database decides at commit (CommitValue), else the handler's own.
 */
export async function runOnceClosing(
  ex: Executor,
  end: TransactionEnd,
  claimed: boolean,
  k: RecordKey,
  argsHash: string,
  fn: () => Promise<unknown>,
): Promise<() => unknown> {
  if (!claimed) {
    const replayed = await replay(ex, k, argsHash);
    return () => replayed;
  }
  const result = (await fn()) ?? null;
  const values: CommitValue[] = [];
  const text = JSON.stringify(result, (_key, value: unknown) => {
    if (!(value instanceof CommitValue)) return value;
    values.push(value);
    return `${VALUE_MARKER}${values.length - 1}`;
  });
  // split with a capture group alternates text and value indexes: text, 0, text, 1, text.
  const parts = text.split(VALUE_PLACES).filter((_, i) => i % 2 === 0);
  const filled: Record<string, unknown> = { ...k };
  parts.forEach((part, i) => {
    filled[`part_${i}`] = part;
  });
  values.forEach((v, i) => {
    filled[`value_${i}`] = v.value;
  });
  const rows = end.sendWithCommit(storeTemplate(values)(ex, filled));
  if (values.length === 0) return () => result;
  return () => JSON.parse(String(rows.rows()[0]?.result));
}

const storeTemplates = new Map<string, ReturnType<typeof statementTemplate<Executor>>>();

/**
 * The answer's store as a template, one for each sequence of CommitValue shapes: the answer's
 * text parts (`part_i`) joined with each value's expression (`value_i`); with no values, the
 * answer's text alone.
 */
function storeTemplate(values: CommitValue[]) {
  const shape = values.map((v) => v.shape).join(',');
  let template = storeTemplates.get(shape);
  if (!template) {
    template = statementTemplate((ex: Executor) => {
      const stored = sql.join(
        [
          sql`${sql.placeholder('part_0')}::text`,
          ...values.flatMap((v, i) => [
            sql`coalesce((${v.expression(sql.placeholder(`value_${i}`))})::text, 'null')`,
            sql`${sql.placeholder(`part_${i + 1}`)}::text`,
          ]),
        ],
        sql` || `,
      );
      return storeUpdate(ex, stored).getSQL();
    });
    storeTemplates.set(shape, template);
  }
  return template;
}

// Where a CommitValue stands in the answer's JSON text while it is stored. The marker holds a
// secret of this process, so no text of an answer (which may echo a caller's words) can stand in
// for a value's place.
const VALUE_MARKER = `cairn-commit-value-${randomBytes(16).toString('hex')}-`;
const VALUE_PLACES = new RegExp(`"${VALUE_MARKER}(\\d+)"`);

/** A repeated key: the first call's answer, or IDEMPOTENCY_KEY_REUSED for other arguments. */
async function replay(ex: Executor, k: RecordKey, argsHash: string): Promise<unknown> {
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

/**
 * The first call's answer when the key was used and finished before (a repeat is answered without
 * doing the work again), null when it was not. Different arguments are IDEMPOTENCY_KEY_REUSED.
 * For work done outside a transaction before its result is stored with `runOnce` (sandbox.exec).
 */
export async function earlierAnswer(
  ex: Executor,
  k: RecordKey,
  argsHash: string,
): Promise<{ result: unknown } | null> {
  const first = await findRecord(ex, k);
  if (!first || first.result === null) return null;
  return { result: await replay(ex, k, argsHash) };
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
  if (!(await claimKey(ex, k, argsHash, now))) return replay(ex, k, argsHash);
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
