import { sql } from 'drizzle-orm';
import { bigint, bigserial, check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from '../../storage/columns.ts';
import { owners } from '../identity/tables.ts';

/**
 * The funds ledger (docs/rewards.md): double entry. Every movement is one transaction whose
 * postings sum to zero in one currency; a balance is the sum of an account's postings, never a
 * stored number. Amounts are integers in minor units: points, or US cents.
 */

/**
 * One account per owner and currency, per task escrow, per fee currency, and per funding source
 * (the outside world's side of a credit, whose balance is minus everything credited).
 */
export const fundAccounts = pgTable(
  'fund_accounts',
  {
    id: text('id').primaryKey(),
    /** `owner:<owner id>:<currency>`, `escrow:<task id>:<currency>`, `fee:<currency>`, `source:<provider>:<currency>`. */
    key: text('key').notNull(),
    kind: text('kind', { enum: ['OWNER', 'ESCROW', 'PLATFORM_FEE', 'FUNDING_SOURCE'] }).notNull(),
    ownerId: text('owner_id').references(() => owners.id),
    currency: text('currency', { enum: ['POINTS', 'USD'] }).notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('fund_accounts_key').on(t.key), index('fund_accounts_owner_idx').on(t.ownerId)],
);

/**
 * One movement. `purpose_key` is unique: the database itself refuses a second escrow of a task,
 * a second settlement (payout or refund) of one escrow, or a replayed credit.
 */
export const fundTransactions = pgTable(
  'fund_transactions',
  {
    id: text('id').primaryKey(),
    /** CREDIT (a funding provider), ESCROW (task funded), RELEASE (approved payout), REFUND (task cancelled). */
    kind: text('kind', { enum: ['CREDIT', 'ESCROW', 'RELEASE', 'REFUND'] }).notNull(),
    purposeKey: text('purpose_key').notNull(),
    currency: text('currency', { enum: ['POINTS', 'USD'] }).notNull(),
    campaignId: text('campaign_id'),
    taskId: text('task_id'),
    /** Who moved it: `owner:<id>`, `cli`, `agent:<id>`; the audit trail of money. */
    actor: text('actor').notNull(),
    note: text('note'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('fund_transactions_purpose_key').on(t.purposeKey)],
);

export const fundPostings = pgTable(
  'fund_postings',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    transactionId: text('transaction_id')
      .notNull()
      .references(() => fundTransactions.id),
    accountId: text('account_id')
      .notNull()
      .references(() => fundAccounts.id),
    /** Signed, in minor units; never zero. */
    amount: bigint('amount', { mode: 'number' }).notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    check('fund_postings_nonzero', sql`${t.amount} <> 0`),
    index('fund_postings_account_idx').on(t.accountId, t.id),
    index('fund_postings_transaction_idx').on(t.transactionId),
  ],
);
