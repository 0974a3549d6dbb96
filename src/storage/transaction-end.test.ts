import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/support/database.ts';
import type { Database } from './database.ts';
import { serverSettings } from './tables.ts';

/**
 * A transaction's opening and closing statements (transaction-end.ts): on PostgreSQL sent with
 * BEGIN and COMMIT as one batch each (pg-batch.ts), on PGlite run first and last. The same behaviour on both.
 */

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

const settingValue = async (key: string) =>
  (
    await database.db
      .select({ value: serverSettings.value })
      .from(serverSettings)
      .where(eq(serverSettings.key, key))
  )[0]?.value;

/** The SQLSTATE codes along an error's cause chain (drivers and drizzle wrap errors). */
function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  for (let e = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

// What a caller may write: quotes, backslashes (E'' territory), a parameter's look-alike, SQL.
const AWKWARD = String.raw`it's a \'test\' with $1 and $$ and '); drop table server_settings; -- « naïve » \x00`;

describe('transaction ends', () => {
  it('runs the opening statement first, the closing ones last and in order, and hands back their rows', async () => {
    const key = `end-${Math.random()}`;
    const seen: string[] = [];
    const { closing, opened } = await database.transaction(async (tx, end, opened) => {
      // The opening insert is visible to the work; the work's update is visible to the end.
      seen.push(
        String((await tx.select().from(serverSettings).where(eq(serverSettings.key, key)))[0]?.value),
      );
      await tx.update(serverSettings).set({ value: 'work' }).where(eq(serverSettings.key, key));
      end.sendWithCommit(
        tx
          .update(serverSettings)
          .set({ value: sql`${serverSettings.value} || ' then end 1'` })
          .where(eq(serverSettings.key, key))
          .getSQL(),
      );
      const closing = end.sendWithCommit(
        tx
          .update(serverSettings)
          .set({ value: sql`${serverSettings.value} || ' then end 2'` })
          .where(eq(serverSettings.key, key))
          .returning({ value: serverSettings.value })
          .getSQL(),
      );
      // Not readable before the commit.
      expect(() => closing.rows()).toThrow(/before its transaction committed/);
      return { closing, opened };
    }, database.db
      .insert(serverSettings)
      .values({ key, value: 'opened', createdAt: new Date() })
      .returning({ key: serverSettings.key })
      .getSQL());
    expect(opened).toEqual([{ key }]);
    expect(seen).toEqual(['opened']);
    expect(closing.rows()).toEqual([{ value: 'work then end 1 then end 2' }]);
    expect(await settingValue(key)).toBe('work then end 1 then end 2');
  });

  it('keeps nothing when a closing statement fails, and says why', async () => {
    const key = `end-fail-${Math.random()}`;
    const failed = await database
      .transaction(
        async (tx, end) => {
          await tx
            .insert(serverSettings)
            .values({ key: `${key}-work`, value: 'work', createdAt: new Date() });
          end.sendWithCommit(
            tx
              .insert(serverSettings)
              .values({ key: `${key}-end`, value: 'end', createdAt: new Date() })
              .getSQL(),
          );
          // The same key again: a unique violation in the end, before its COMMIT.
          end.sendWithCommit(
            tx
              .insert(serverSettings)
              .values({ key: `${key}-end`, value: 'again', createdAt: new Date() })
              .getSQL(),
          );
        },
        database.db
          .insert(serverSettings)
          .values({ key: `${key}-open`, value: 'open', createdAt: new Date() })
          .getSQL(),
      )
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(Error);
    expect(codesOf(failed)).toContain('23505');
    const left = await database.db
      .select()
      .from(serverSettings)
      .where(inArray(serverSettings.key, [`${key}-open`, `${key}-work`, `${key}-end`]));
    expect(left).toEqual([]);
    // The connection went back to the pool in a usable state.
    expect(await database.transaction(async () => 'fine')).toBe('fine');
  });

  it('stores every value exactly as given, however it is written', async () => {
    const key = `end-literal-${AWKWARD}-${Math.random()}`;
    await database.transaction(async (_tx, end) => {
      end.sendWithCommit(
        database.db
          .insert(serverSettings)
          .values({ key: `${key}-end`, value: AWKWARD, createdAt: new Date() })
          .getSQL(),
      );
    }, database.db.insert(serverSettings).values({ key, value: AWKWARD, createdAt: new Date() }).getSQL());
    expect(await settingValue(key)).toBe(AWKWARD);
    expect(await settingValue(`${key}-end`)).toBe(AWKWARD);
  });
});
