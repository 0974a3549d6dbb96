import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Clock } from '../../kernel/clock.ts';
import { openCursor, signCursor } from '../../kernel/cursor.ts';
import { newId } from '../../kernel/ids.ts';
import { cutPage } from '../../kernel/paging.ts';
import type { Database } from '../../storage/database.ts';
import { checkFunds, type FundsCheck } from './check.ts';
import type { FundingProvider } from './funding.ts';
import { balanceOf, ownerAccountKey } from './ledger.ts';
import { CURRENCIES, type Currency, money } from './money.ts';
import { fundAccounts, fundPostings, fundTransactions } from './tables.ts';

/**
 * What owners and the operator do with funds outside a task: see a balance and its postings,
 * credit a balance through the funding provider, and check the books.
 */
export class FundsService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly secret: string,
    readonly provider: FundingProvider,
    /** The platform fee in percent, taken at funding (CAIRN_PLATFORM_FEE_PCT). */
    readonly feePct: number,
  ) {}

  /** The owner's balance in each currency (a sum of postings), and how to add funds. */
  async balance(ownerId: string) {
    const db = this.database.db;
    const balances = [];
    for (const currency of CURRENCIES) {
      const [acct] = await db
        .select({ id: fundAccounts.id })
        .from(fundAccounts)
        .where(eq(fundAccounts.key, ownerAccountKey(ownerId, currency)));
      balances.push(money(currency, acct ? await balanceOf(db, acct.id) : 0));
    }
    return {
      owner_id: ownerId,
      balances,
      platform_fee_pct: this.feePct,
      how_to_add_funds: this.provider.howToAdd(),
    };
  }

  /** The postings of the owner's accounts, newest first, a page at a time (signed cursor). */
  async postings(ownerId: string, opts: { limit: number; cursor?: string | undefined; currency?: Currency }) {
    const binding = `postings:${ownerId}:${opts.currency ?? '*'}`;
    const after = opts.cursor ? openCursor<{ id: number }>(this.secret, binding, opts.cursor) : null;
    const rows = await this.database.db
      .select({
        id: fundPostings.id,
        amount: fundPostings.amount,
        currency: fundAccounts.currency,
        at: fundPostings.createdAt,
        transactionId: fundTransactions.id,
        kind: fundTransactions.kind,
        campaignId: fundTransactions.campaignId,
        taskId: fundTransactions.taskId,
        actor: fundTransactions.actor,
        note: fundTransactions.note,
      })
      .from(fundPostings)
      .innerJoin(fundAccounts, eq(fundAccounts.id, fundPostings.accountId))
      .innerJoin(fundTransactions, eq(fundTransactions.id, fundPostings.transactionId))
      .where(
        and(
          eq(fundAccounts.ownerId, ownerId),
          eq(fundAccounts.kind, 'OWNER'),
          opts.currency ? eq(fundAccounts.currency, opts.currency) : undefined,
          after ? lt(fundPostings.id, after.id) : undefined,
        ),
      )
      .orderBy(desc(fundPostings.id))
      .limit(opts.limit + 1);
    const page = cutPage(rows, opts.limit, (last) => signCursor(this.secret, binding, { id: last.id }));
    return {
      postings: page.rows.map((r) => ({
        posting_id: r.id,
        transaction_id: r.transactionId,
        kind: r.kind,
        ...money(r.currency, r.amount),
        direction: r.amount > 0 ? 'IN' : 'OUT',
        campaign_id: r.campaignId,
        task_id: r.taskId,
        by: r.actor,
        note: r.note,
        at: r.at.toISOString(),
      })),
      next_cursor: page.next,
    };
  }

  /**
   * Credits an owner's balance through the funding provider (the operator's act). `reference`
   * makes a retried credit move nothing twice; without one, each call is a new credit.
   */
  async credit(input: {
    ownerId: string;
    currency: Currency;
    amount: number;
    actor: string;
    note?: string | null;
    reference?: string | undefined;
  }) {
    const now = this.clock.now();
    const reference = input.reference ?? newId('ftx', now);
    const result = await this.database.transaction((tx) =>
      this.provider.credit(tx, { ...input, reference }, now),
    );
    return {
      ...result,
      owner_id: input.ownerId,
      credited: money(input.currency, input.amount),
      reference,
      balance: (await this.balance(input.ownerId)).balances.find((b) => b.currency === input.currency),
    };
  }

  /** The invariant check (`cairn rewards check`). */
  check(): Promise<FundsCheck> {
    // One snapshot for every query, so movements committing meanwhile cannot show half.
    return this.database.transaction(async (tx) => {
      await tx.execute(sql`set transaction isolation level repeatable read`);
      return checkFunds(tx);
    });
  }
}
