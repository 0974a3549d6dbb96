import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/support/database.ts';
import type { Database } from './database.ts';
import { executeNamed, preparedStatement } from './prepared.ts';
import { serverSettings } from './tables.ts';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

const settingOf = preparedStatement('test_setting_of', (ex) =>
  ex
    .select({ value: serverSettings.value })
    .from(serverSettings)
    .where(eq(serverSettings.key, sql.placeholder('key'))),
);

describe('preparedStatement', () => {
  it('runs on the database and, built once, inside a transaction, seeing what it wrote', async () => {
    const key = `prepared-${Math.random()}`;
    expect(await settingOf(database.db, { key })).toEqual([]);
    const inside = await database
      .transaction(async (tx) => {
        await tx.insert(serverSettings).values({ key, value: 'uncommitted', createdAt: new Date() });
        const seen = await settingOf(tx, { key });
        throw Object.assign(new Error('roll back'), { seen });
      })
      .catch((err: { seen?: unknown }) => err.seen);
    // Only the transaction's own connection can see a row it has not committed.
    expect(inside).toEqual([{ value: 'uncommitted' }]);
    expect(await settingOf(database.db, { key })).toEqual([]);
  });

  it('takes each call its own values, on the database and in transactions one after another', async () => {
    const keys = [`prepared-a-${Math.random()}`, `prepared-b-${Math.random()}`];
    await database.db
      .insert(serverSettings)
      .values(keys.map((key, i) => ({ key, value: `v${i}`, createdAt: new Date() })));
    for (let round = 0; round < 3; round++) {
      expect(await settingOf(database.db, { key: keys[0] })).toEqual([{ value: 'v0' }]);
      expect(await database.transaction((tx) => settingOf(tx, { key: keys[1] }))).toEqual([{ value: 'v1' }]);
    }
    const both = await Promise.all(keys.map((key) => database.transaction((tx) => settingOf(tx, { key }))));
    expect(both).toEqual([[{ value: 'v0' }], [{ value: 'v1' }]]);
  });
});

describe('executeNamed', () => {
  const namedSetting = (ex: Parameters<typeof executeNamed>[0], key: string) =>
    executeNamed<{ rows: Array<{ value: string }> }>(
      ex,
      sql`select ${serverSettings.value} as value from ${serverSettings} where ${serverSettings.key} = ${key}`,
    ).then((r) => r.rows);

  it("runs one text with each call's values, on the database and inside a transaction", async () => {
    const key = `named-${Math.random()}`;
    expect(await namedSetting(database.db, key)).toEqual([]);
    const inside = await database
      .transaction(async (tx) => {
        await tx.insert(serverSettings).values({ key, value: 'uncommitted', createdAt: new Date() });
        throw Object.assign(new Error('roll back'), { seen: await namedSetting(tx, key) });
      })
      .catch((err: { seen?: unknown }) => err.seen);
    expect(inside).toEqual([{ value: 'uncommitted' }]);
    await database.db.insert(serverSettings).values({ key, value: 'kept', createdAt: new Date() });
    for (let i = 0; i < 3; i++) {
      expect(await namedSetting(database.db, key)).toEqual([{ value: 'kept' }]);
      expect(await namedSetting(database.db, `${key}-absent`)).toEqual([]);
    }
  });
});
