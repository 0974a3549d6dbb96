import { eq, sql } from 'drizzle-orm';
import { newId } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import { insufficientFunds } from './errors.ts';
import { type Currency, MAX_MINOR } from './money.ts';
import { fundAccounts, fundPostings, fundTransactions } from './tables.ts';

/**
 * The double-entry primitives every movement goes through: find (or open) an account, lock it,
 * read its balance as the sum of its postings, and post one balanced transaction. They run in
 * the caller's transaction, so a movement commits with the change it pays for, or not at all.
 */

export type AccountKind = 'OWNER' | 'ESCROW' | 'PLATFORM_FEE' | 'FUNDING_SOURCE';

export interface Account {
  id: string;
  key: string;
  kind: AccountKind;
  ownerId: string | null;
  currency: Currency;
}

export const ownerAccountKey = (ownerId: string, currency: Currency) => `owner:${ownerId}:${currency}`;
export const escrowAccountKey = (taskId: string, currency: Currency) => `escrow:${taskId}:${currency}`;
export const feeAccountKey = (currency: Currency) => `fee:${currency}`;
export const sourceAccountKey = (provider: string, currency: Currency) => `source:${provider}:${currency}`;

/** The account under `key`, opened on first use (two openers race harmlessly on the unique key). */
export async function account(
  ex: Executor,
  spec: { key: string; kind: AccountKind; ownerId?: string | null; currency: Currency },
  now: Date,
): Promise<Account> {
  await ex
    .insert(fundAccounts)
    .values({
      id: newId('fac', now),
      key: spec.key,
      kind: spec.kind,
      ownerId: spec.ownerId ?? null,
      currency: spec.currency,
      createdAt: now,
    })
    .onConflictDoNothing();
  const [row] = await ex.select().from(fundAccounts).where(eq(fundAccounts.key, spec.key));
  if (!row) throw new Error(`fund account ${spec.key} vanished after it was opened`);
  return row as Account;
}

export const ownerAccount = (ex: Executor, ownerId: string, currency: Currency, now: Date) =>
  account(ex, { key: ownerAccountKey(ownerId, currency), kind: 'OWNER', ownerId, currency }, now);

/**
 * The account row locked until the transaction ends, against other debits of it: two movements
 * out of one balance are decided one after the other. (NO KEY UPDATE, so credits into it, which
 * only take a key-share lock for their foreign key, are not held up and cannot deadlock on it.)
 */
export async function lockAccount(ex: Executor, id: string): Promise<void> {
  await ex.execute(sql`select id from fund_accounts where id = ${id} for no key update`);
}

/** The balance: the sum of the account's postings. */
export async function balanceOf(ex: Executor, accountId: string): Promise<number> {
  const [row] = await ex
    .select({ sum: sql<string | null>`sum(${fundPostings.amount})` })
    .from(fundPostings)
    .where(eq(fundPostings.accountId, accountId));
  return Number(row?.sum ?? 0);
}

/**
 * Takes `amount` out of an owner's account, or refuses with INSUFFICIENT_FUNDS: the account is
 * locked first, so two movements from one balance are decided one after the other.
 */
export async function requireCovered(ex: Executor, acct: Account, amount: number): Promise<number> {
  await lockAccount(ex, acct.id);
  const balance = await balanceOf(ex, acct.id);
  if (balance < amount) throw insufficientFunds(acct.currency, balance, amount);
  return balance;
}

export interface Movement {
  kind: 'CREDIT' | 'ESCROW' | 'RELEASE' | 'REFUND';
  /** Unique for all time: a second movement with it is not made (the answer is null). */
  purposeKey: string;
  campaignId?: string | null;
  taskId?: string | null;
  actor: string;
  note?: string | null;
  lines: Array<{ account: Account; amount: number }>;
}

/**
 * Posts one balanced transaction and returns its id, or null when `purposeKey` was already
 * posted (nothing is moved twice). Lines must be in one currency and sum to zero.
 */
export async function post(ex: Executor, m: Movement, now: Date): Promise<string | null> {
  const lines = m.lines.filter((l) => l.amount !== 0);
  const currency = lines[0]?.account.currency;
  if (!currency || lines.length < 2) throw new Error(`movement ${m.purposeKey} has fewer than two postings`);
  if (lines.some((l) => l.account.currency !== currency)) {
    throw new Error(`movement ${m.purposeKey} mixes currencies; points and dollars are never converted`);
  }
  if (lines.some((l) => !Number.isSafeInteger(l.amount) || Math.abs(l.amount) > MAX_MINOR)) {
    throw new Error(`movement ${m.purposeKey} has an amount that is not a whole number of minor units`);
  }
  if (lines.reduce((sum, l) => sum + l.amount, 0) !== 0) {
    throw new Error(`movement ${m.purposeKey} does not balance`);
  }
  const id = newId('ftx', now);
  const [made] = await ex
    .insert(fundTransactions)
    .values({
      id,
      kind: m.kind,
      purposeKey: m.purposeKey,
      currency,
      campaignId: m.campaignId ?? null,
      taskId: m.taskId ?? null,
      actor: m.actor,
      note: m.note ?? null,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: fundTransactions.id });
  if (!made) return null;
  await ex
    .insert(fundPostings)
    .values(
      lines.map((l) => ({ transactionId: id, accountId: l.account.id, amount: l.amount, createdAt: now })),
    );
  return id;
}

/** Every balance of the accounts whose key starts with `prefix` (for the rewards check). */
export async function balancesByPrefix(ex: Executor, prefix: string): Promise<Map<string, number>> {
  const rows = await ex
    .select({ key: fundAccounts.key, sum: sql<string | null>`sum(${fundPostings.amount})` })
    .from(fundAccounts)
    .leftJoin(fundPostings, eq(fundPostings.accountId, fundAccounts.id))
    .where(sql`${fundAccounts.key} like ${`${prefix}%`}`)
    .groupBy(fundAccounts.key);
  return new Map(rows.map((r) => [r.key, Number(r.sum ?? 0)]));
}
