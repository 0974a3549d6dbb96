import { expect } from 'vitest';
import type { Member } from './campaigns.ts';

export { ownerApi, ownerTokenOf } from './owner-api.ts';

import type { TestServer } from './test-server.ts';

/** Helpers for paid-task tests: owner API calls, balances, and the invariant check after each scenario. */

/** Credits the owner of `m` through the funding provider, as the operator would. */
export async function credit(
  server: TestServer,
  m: { ownerEmail: string },
  currency: 'POINTS' | 'USD',
  minor: number,
) {
  const owner = await server.app.services.identity.requireOwner(m.ownerEmail);
  return server.app.services.funds.credit({ ownerId: owner.id, currency, amount: minor, actor: 'test' });
}

/** The owner's balance in minor units. */
export async function balance(server: TestServer, m: { ownerEmail: string }, currency: 'POINTS' | 'USD') {
  const owner = await server.app.services.identity.requireOwner(m.ownerEmail);
  const b = await server.app.services.funds.balance(owner.id);
  return b.balances.find((x) => x.currency === currency)?.minor_units ?? 0;
}

/** `cairn rewards check`'s two halves: every balance from postings sums to zero, every escrow matches its task. */
export async function expectBooksBalanced(server: TestServer): Promise<void> {
  const books = await server.app.services.funds.check();
  const tasks = await server.app.services.ownerRewards.check();
  expect(books, JSON.stringify(books)).toMatchObject({
    ok: true,
    unbalanced_transactions: [],
    negative_accounts: [],
  });
  for (const sum of Object.values(books.sum_by_currency)) expect(sum).toBe(0);
  expect(tasks, JSON.stringify(tasks)).toMatchObject({ ok: true, escrow_mismatches: [], double_payments: 0 });
}

export type { Member };
