import { and, eq } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import { account, ownerAccount, post, sourceAccountKey } from './ledger.ts';
import type { Currency } from './money.ts';
import { fundPostings, fundTransactions } from './tables.ts';

/**
 * Where money comes into Cairn (docs/rewards.md). A provider credits an owner's balance from
 * its own source account, in one balanced movement; nothing ever pays out to the outside world.
 * The built-in provider is the operator's manual credit; a card processor would be a second
 * provider whose webhook calls `credit` with the processor's payment id as `reference`.
 */
export interface FundingProvider {
  /** Names its source account (`source:<name>:<currency>`). */
  readonly name: string;
  /** What an owner does to add funds, shown on the balance and funding pages. */
  howToAdd(): string;
  credit(ex: Executor, c: Credit, now: Date): Promise<{ transaction_id: string; replayed: boolean }>;
}

export interface Credit {
  ownerId: string;
  currency: Currency;
  /** Minor units, positive. */
  amount: number;
  /** Unique per credit: a replay with the same reference moves nothing the second time. */
  reference: string;
  actor: string;
  note?: string | null;
}

/** The operator's manual credit (`cairn funds add`, or the console's operator page). */
export class ManualCredit implements FundingProvider {
  readonly name = 'manual';

  howToAdd(): string {
    return 'Balances are credited by the operator of this Cairn (cairn funds add, or the operator page of the console); ask them to credit yours.';
  }

  async credit(ex: Executor, c: Credit, now: Date) {
    if (!Number.isSafeInteger(c.amount) || c.amount <= 0)
      throw new Error('a credit must be a positive whole amount');
    const source = await account(
      ex,
      { key: sourceAccountKey(this.name, c.currency), kind: 'FUNDING_SOURCE', currency: c.currency },
      now,
    );
    const owner = await ownerAccount(ex, c.ownerId, c.currency, now);
    const purposeKey = `credit:${this.name}:${c.reference}`;
    const id = await post(
      ex,
      {
        kind: 'CREDIT',
        purposeKey,
        actor: c.actor,
        note: c.note ?? null,
        lines: [
          { account: source, amount: -c.amount },
          { account: owner, amount: c.amount },
        ],
      },
      now,
    );
    if (id) return { transaction_id: id, replayed: false };
    return { transaction_id: await sameCredit(ex, purposeKey, owner.id, c.amount), replayed: true };
  }
}

/** The earlier credit under this reference, when it was the same credit; otherwise a refusal. */
async function sameCredit(
  ex: Executor,
  purposeKey: string,
  accountId: string,
  amount: number,
): Promise<string> {
  const [row] = await ex
    .select({ id: fundTransactions.id })
    .from(fundTransactions)
    .innerJoin(fundPostings, eq(fundPostings.transactionId, fundTransactions.id))
    .where(
      and(
        eq(fundTransactions.purposeKey, purposeKey),
        eq(fundPostings.accountId, accountId),
        eq(fundPostings.amount, amount),
      ),
    );
  if (!row) {
    throw new DomainError(
      'IDEMPOTENCY_KEY_REUSED',
      'This credit reference was already used for another owner, currency or amount; nothing was credited.',
      { reference: purposeKey.split(':').slice(2).join(':') },
    );
  }
  return row.id;
}
