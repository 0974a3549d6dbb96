import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBatch } from './pg-batch.ts';

/**
 * Several statements in one round trip (pg-batch.ts), on a connection of the test's own so what
 * that connection has prepared can be seen. PostgreSQL only: PGlite runs statements one by one.
 */

const url = process.env.TEST_DATABASE_URL;
let client: pg.Client;

beforeAll(async () => {
  if (!url) return;
  client = new pg.Client({ connectionString: url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
});

const prepared = async () =>
  (await client.query<{ name: string }>('select name from pg_prepared_statements order by name')).rows.map(
    (r) => r.name,
  );

describe.skipIf(!url)('a batch of statements', () => {
  it('runs them in order in one round trip and hands back each one’s rows, its values bound as given', async () => {
    const when = new Date('2026-11-28T10:00:00.000Z');
    const results = await runBatch(client as unknown as pg.PoolClient, [
      { text: 'begin', values: [], name: 'test_b_begin' },
      {
        text: 'create temporary table batch_t (n int, s text, j jsonb, t timestamptz) on commit drop',
        values: [],
      },
      {
        text: 'insert into batch_t values ($1, $2, $3, $4), ($5, $6, $7, $8) returning n',
        values: [1, "it's $1 \\ '); --", { a: [1, 'two'] }, when, 2, null, null, null],
        name: 'test_b_insert',
      },
      { text: 'select n, s, j, t from batch_t order by n', values: [], name: 'test_b_select' },
      { text: 'commit', values: [], name: 'test_b_commit' },
    ]);
    expect(results).toHaveLength(5);
    expect(results[2]?.rows).toEqual([{ n: 1 }, { n: 2 }]);
    expect(results[3]?.rows).toEqual([
      { n: 1, s: "it's $1 \\ '); --", j: { a: [1, 'two'] }, t: when },
      { n: 2, s: null, j: null, t: null },
    ]);
    expect(results[4]?.command).toBe('COMMIT');
    // Named ones stay prepared for the next batch on this connection; unnamed ones do not.
    expect(await prepared()).toEqual(['test_b_begin', 'test_b_commit', 'test_b_insert', 'test_b_select']);
    const again = await runBatch(client as unknown as pg.PoolClient, [
      { text: 'select $1::int + 1 as n', values: [41], name: 'test_b_add' },
      { text: 'select $1::int + 1 as n', values: [1], name: 'test_b_add' },
    ]);
    expect(again.map((r) => r.rows)).toEqual([[{ n: 42 }], [{ n: 2 }]]);
  });

  it('stops at the first failure, runs nothing behind it, and leaves the connection usable', async () => {
    await client.query('create temporary table batch_kept (n int primary key)');
    const failed = await runBatch(client as unknown as pg.PoolClient, [
      { text: 'begin', values: [], name: 'test_b_begin' },
      // Parsed by this batch before the failure, so it exists on the server afterwards.
      { text: 'insert into batch_kept values ($1)', values: [1], name: 'test_b_keep' },
      { text: 'insert into batch_kept values ($1)', values: [1], name: 'test_b_keep' },
      { text: 'insert into batch_kept values ($1)', values: [2], name: 'test_b_keep' },
      { text: 'commit', values: [], name: 'test_b_commit' },
    ]).catch((err: unknown) => err);
    expect((failed as { code?: string }).code).toBe('23505');
    // The COMMIT behind the failure never ran: the transaction is still open, aborted.
    await expect(client.query('select 1')).rejects.toMatchObject({ code: '25P02' });
    await client.query('rollback');
    expect((await client.query('select count(*)::int as n from batch_kept')).rows).toEqual([{ n: 0 }]);
    // The statement the failed batch prepared is prepared again without a clash.
    const results = await runBatch(client as unknown as pg.PoolClient, [
      { text: 'insert into batch_kept values ($1)', values: [3], name: 'test_b_keep' },
    ]);
    expect(results[0]?.rowCount).toBe(1);
  });

  it('fails at once, sending nothing, when a value cannot be bound', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(
      runBatch(client as unknown as pg.PoolClient, [{ text: 'select $1::jsonb', values: [circular] }]),
    ).rejects.toThrow(/circular/i);
    expect((await client.query('select 2 as n')).rows).toEqual([{ n: 2 }]);
  });
});
