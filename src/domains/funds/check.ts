import { sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';

/**
 * The invariant check of the funds ledger (`cairn rewards check`): every balance recomputed from
 * its postings, every transaction balanced in its own currency, the sum of all accounts zero per
 * currency, and no owner, escrow or fee account below zero. Any finding is a defect.
 */
export interface FundsCheck {
  ok: boolean;
  accounts: number;
  transactions: number;
  postings: number;
  /** Per currency: the sum of every account's balance (zero when the books are right). */
  sum_by_currency: Record<string, number>;
  unbalanced_transactions: Array<{ transaction_id: string; sum: number }>;
  mixed_currency_transactions: string[];
  negative_accounts: Array<{ account: string; balance: number }>;
  /** Balances by kind and currency, recomputed from postings. */
  balances: Array<{ kind: string; currency: string; accounts: number; total: number }>;
}

const rows = async <T>(ex: Executor, q: ReturnType<typeof sql>) =>
  ((await ex.execute(q)) as unknown as { rows: T[] }).rows;

export async function checkFunds(ex: Executor): Promise<FundsCheck> {
  const [counts] = await rows<{ accounts: string; transactions: string; postings: string }>(
    ex,
    sql`select (select count(*) from fund_accounts) as accounts,
               (select count(*) from fund_transactions) as transactions,
               (select count(*) from fund_postings) as postings`,
  );
  const sums = await rows<{ currency: string; total: string }>(
    ex,
    sql`select a.currency, coalesce(sum(p.amount), 0) as total
          from fund_accounts a left join fund_postings p on p.account_id = a.id
         group by a.currency order by a.currency`,
  );
  const unbalanced = await rows<{ transaction_id: string; total: string }>(
    ex,
    sql`select t.id as transaction_id, coalesce(sum(p.amount), 0) as total
          from fund_transactions t left join fund_postings p on p.transaction_id = t.id
         group by t.id having coalesce(sum(p.amount), 0) <> 0 or count(p.id) < 2
         order by t.id limit 100`,
  );
  const mixed = await rows<{ transaction_id: string }>(
    ex,
    sql`select distinct t.id as transaction_id
          from fund_transactions t
          join fund_postings p on p.transaction_id = t.id
          join fund_accounts a on a.id = p.account_id
         where a.currency <> t.currency order by t.id limit 100`,
  );
  const negative = await rows<{ account: string; balance: string }>(
    ex,
    sql`select a.key as account, sum(p.amount) as balance
          from fund_accounts a join fund_postings p on p.account_id = a.id
         where a.kind <> 'FUNDING_SOURCE'
         group by a.key having sum(p.amount) < 0 order by a.key limit 100`,
  );
  const balances = await rows<{ kind: string; currency: string; accounts: string; total: string }>(
    ex,
    sql`select a.kind, a.currency, count(distinct a.id) as accounts, coalesce(sum(p.amount), 0) as total
          from fund_accounts a left join fund_postings p on p.account_id = a.id
         group by a.kind, a.currency order by a.kind, a.currency`,
  );
  const sumByCurrency = Object.fromEntries(sums.map((r) => [r.currency, Number(r.total)]));
  return {
    ok:
      Object.values(sumByCurrency).every((v) => v === 0) &&
      unbalanced.length === 0 &&
      mixed.length === 0 &&
      negative.length === 0,
    accounts: Number(counts?.accounts ?? 0),
    transactions: Number(counts?.transactions ?? 0),
    postings: Number(counts?.postings ?? 0),
    sum_by_currency: sumByCurrency,
    unbalanced_transactions: unbalanced.map((r) => ({
      transaction_id: r.transaction_id,
      sum: Number(r.total),
    })),
    mixed_currency_transactions: mixed.map((r) => r.transaction_id),
    negative_accounts: negative.map((r) => ({ account: r.account, balance: Number(r.balance) })),
    balances: balances.map((r) => ({
      kind: r.kind,
      currency: r.currency,
      accounts: Number(r.accounts),
      total: Number(r.total),
    })),
  };
}
