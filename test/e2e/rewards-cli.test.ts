import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TABLES } from '../../src/domains/catalog.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { cairnCli, seedDataDir } from '../support/cairn-cli.ts';
import { onPostgres } from '../support/database.ts';
import { uniqueEmail } from '../support/factories.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';

// Real processes (tsx, PGlite) start slowly on a loaded two-core machine: more time than most tests.
// Each command is a process of its own (2-3 s to start on an idle 2-core machine, several times
// that while the rest of the suite runs beside it); a test runs a dozen or more in turn.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

/**
 * Issue 17 items 1 and 7: the operator's `cairn funds add`, and `cairn rewards check` failing
 * when the books do not balance. On PostgreSQL the file has a database of its own, since it
 * breaks the books on purpose.
 */

let dataDir: string;
let own: OwnDatabase | null = null;
const cli = cairnCli(() => dataDir);
const cairn = (args: string[], stdin = '') =>
  cli.run(args, { stdin, ...(own ? { env: { DATABASE_URL: own.url } } : {}) });

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-funds-'));
  await seedDataDir(dataDir);
  if (onPostgres) own = await ownDatabase('cairn_funds_cli', process.env.TEST_DATABASE_URL as string);
});
afterAll(async () => {
  await own?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `sql` on the database the CLI uses, while no CLI process holds it. */
async function onTheDatabase(query: ReturnType<typeof sql>) {
  if (own) return own.database.db.execute(query);
  const database = await openDatabase({ tables: TABLES, dataDir: path.join(dataDir, 'pg') });
  try {
    return await database.db.execute(query);
  } finally {
    await database.close();
  }
}

describe('cairn funds add and cairn rewards check', () => {
  it('credits points or dollars once per reference, refuses bad amounts, and checks the books', async () => {
    const email = uniqueEmail();
    expect((await cairn(['owner', 'add', '--email', email, '--json'], 'correct horse battery\n')).code).toBe(
      0,
    );

    const points = await cairn([
      'funds',
      'add',
      '--owner',
      email,
      '--points',
      '500',
      '--reference',
      'grant-0001',
      '--json',
    ]);
    expect(points.stderr).toBe('');
    const credited = JSON.parse(points.stdout);
    expect(credited).toMatchObject({
      replayed: false,
      credited: { currency: 'POINTS', minor_units: 500 },
      balance: { minor_units: 500 },
    });
    // The same reference again moves nothing.
    const again = JSON.parse(
      (
        await cairn([
          'funds',
          'add',
          '--owner',
          email,
          '--points',
          '500',
          '--reference',
          'grant-0001',
          '--json',
        ])
      ).stdout,
    );
    expect(again).toMatchObject({
      replayed: true,
      transaction_id: credited.transaction_id,
      balance: { minor_units: 500 },
    });
    const other = await cairn([
      'funds',
      'add',
      '--owner',
      email,
      '--points',
      '9',
      '--reference',
      'grant-0001',
      '--json',
    ]);
    expect(other.code).toBe(1);
    expect(JSON.parse(other.stderr).error.code).toBe('IDEMPOTENCY_KEY_REUSED');

    const usd = JSON.parse(
      (await cairn(['funds', 'add', '--owner', email, '--usd', '12.5', '--json'])).stdout,
    );
    expect(usd.balance).toMatchObject({ currency: 'USD', amount: 12.5, minor_units: 1250 });

    for (const bad of [['--usd', '1.005'], ['--points', '1.5'], ['--points', '5', '--usd', '5'], []]) {
      const refused = await cairn(['funds', 'add', '--owner', email, ...bad]);
      expect(refused.code, bad.join(' ')).toBe(2);
    }
    const stranger = await cairn(['funds', 'add', '--owner', uniqueEmail(), '--points', '5', '--json']);
    expect([stranger.code, JSON.parse(stranger.stderr).error.code]).toEqual([1, 'NOT_FOUND']);

    const check = await cairn(['rewards', 'check', '--json']);
    expect(check.code, check.stderr).toBe(0);
    const report = JSON.parse(check.stdout);
    expect(report).toMatchObject({
      ok: true,
      funds: { ok: true, unbalanced_transactions: [] },
      rewards: { ok: true },
    });
    expect(report.funds.sum_by_currency).toEqual({ POINTS: 0, USD: 0 });

    // A posting written behind the ledger's back: the check finds it and fails the command.
    await onTheDatabase(
      sql`insert into fund_postings (transaction_id, account_id, amount, created_at)
          select ${credited.transaction_id}, account_id, 7, now() from fund_postings
           where transaction_id = ${credited.transaction_id} and amount > 0`,
    );
    const broken = await cairn(['rewards', 'check', '--json']);
    expect(broken.code).toBe(1);
    const found = JSON.parse(broken.stdout);
    expect(found.ok).toBe(false);
    expect(found.funds.unbalanced_transactions).toEqual([
      { transaction_id: credited.transaction_id, sum: 7 },
    ]);
    expect(found.funds.sum_by_currency.POINTS).toBe(7);
  });
});
