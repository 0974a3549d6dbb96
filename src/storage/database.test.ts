import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, openTestDatabase } from '../../test/support/database.ts';
import type { Database } from './database.ts';
import { serverSettings } from './tables.ts';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe('transactions', () => {
  it('commit together or roll back together', async () => {
    const key = `tx-${Math.random()}`;
    await expect(
      database.transaction(async (tx) => {
        await tx.insert(serverSettings).values({ key, value: 'v', createdAt: new Date() });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    const rows = await database.db.select().from(serverSettings).where(eq(serverSettings.key, key));
    expect(rows).toHaveLength(0);
  });

  it.skipIf(onPostgres)(
    'refuse the database handle inside a transaction on PGlite instead of deadlocking',
    async () => {
      const failure = await database
        .transaction(async () => {
          await database.db.execute(sql`select 1`);
        })
        .catch((err: Error) => err);
      // drizzle wraps the driver's error; ours is the cause.
      expect(String((failure as Error).cause)).toMatch(/used inside a transaction/);
      // The handle works again once the transaction is over.
      expect(await database.healthy()).toBe(true);
    },
  );
});
