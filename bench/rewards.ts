import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { RewardOwnerService } from '../src/domains/campaigns/index.ts';
import { TABLES } from '../src/domains/catalog.ts';
import { FundsService, ManualCredit } from '../src/domains/funds/index.ts';
import { systemClock } from '../src/kernel/clock.ts';
import { openDatabase } from '../src/storage/database.ts';
import { percentile } from './campaign-setup.ts';
import { freePort, makeTempDir, removeTempDir, startNode, stop, waitForHealth } from './children.ts';
import { type PendingRelease, preparePendingReleases } from './rewards-setup.ts';

/**
 * `npm run bench -- rewards` (issue 17): 1,000 approval decisions over 100 paid tasks, each with
 * a release request waiting, from 50 concurrent clients through Cairn's owner API
 * (`POST /v1/rewards/approvals/{id}/decision`, owner API token) on a real `cairn serve` over
 * PostgreSQL. Every task is decided 10 times, by 10 clients at once: one decision pays, nine
 * are refused APPROVAL_NOT_PENDING. Printed: approvals/s, double_payments (from the database:
 * a task with two RELEASE transactions or two 200 answers, an owner paid more than earned) and
 * the invariant check (`cairn rewards check`'s two halves). Against it, in the same run, the same
 * 1,000 decisions as plain SQL transactions over 50 `pg` connections on copies of the same
 * tables in a schema of their own (lock the request FOR UPDATE, check it is PENDING, open the
 * payee's account, insert the transaction and its two postings, mark the request approved).
 * PostgreSQL only: the bench makes its own database, cairn_bench_rewards, and drops it after.
 * Last line: rewards_ratio=<Cairn wall time / plain SQL wall time>.
 */

const DB_NAME = 'cairn_bench_rewards';
const PLAIN = 'plain_rewards';
const TASKS = 100;
const CLIENTS = 50;
const PER_TASK = 10;
const DECISIONS = TASKS * PER_TASK;
const WORKERS = 10;
const REWARD = 100;

/**
 * Which request client `c` decides in its round `k`: clients 0-9 all decide task k·5, 10-19
 * task k·5+1, …, so each round contests 5 tasks by 10 clients each, and 20 rounds cover 100.
 */
function schedule(releases: PendingRelease[]): PendingRelease[][] {
  const groups = CLIENTS / PER_TASK;
  const rounds = DECISIONS / CLIENTS;
  return Array.from({ length: CLIENTS }, (_, c) =>
    Array.from(
      { length: rounds },
      (_, k) => releases[Math.floor(c / PER_TASK) + groups * k] as PendingRelease,
    ),
  );
}

interface Decided {
  taskId: string;
  /** 'PAID', 'REFUSED' (already decided), or what else came back. */
  outcome: string;
  ms: number;
}

/** Runs every client's decisions back to back, all clients at once; wall seconds and each decision. */
async function race(
  plan: PendingRelease[][],
  decide: (client: number, r: PendingRelease) => Promise<string>,
): Promise<{ seconds: number; decided: Decided[] }> {
  const decided: Decided[] = [];
  const started = performance.now();
  await Promise.all(
    plan.map(async (mine, c) => {
      for (const r of mine) {
        const t0 = performance.now();
        const outcome = await decide(c, r);
        decided.push({ taskId: r.taskId, outcome, ms: performance.now() - t0 });
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, decided };
}

function summarise(name: string, run: { seconds: number; decided: Decided[] }) {
  const counts = new Map<string, number>();
  const winners = new Map<string, number>();
  for (const d of run.decided) {
    counts.set(d.outcome, (counts.get(d.outcome) ?? 0) + 1);
    if (d.outcome === 'PAID') winners.set(d.taskId, (winners.get(d.taskId) ?? 0) + 1);
  }
  const ms = run.decided.map((d) => d.ms);
  const outcomes = [...counts].map(([k, n]) => `${k}=${n}`).join(' ');
  process.stdout.write(
    `${name.padEnd(10)} ${run.decided.length} decisions in ${run.seconds.toFixed(2)} s = ${(run.decided.length / run.seconds).toFixed(1)} approvals/s; p50 ${percentile(ms, 50).toFixed(1)} ms p99 ${percentile(ms, 99).toFixed(1)} ms; ${outcomes}\n`,
  );
  return { counts, winners };
}

/** Decisions through Cairn's owner API on a real `cairn serve`. */
async function cairnRun(url: string, secret: string, token: string, plan: PendingRelease[][]) {
  const port = await freePort();
  const dataDir = makeTempDir('cairn-bench-rewards-serve-');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    CAIRN_DATA_DIR: dataDir,
    CAIRN_SECRET: secret,
  };
  delete env.CAIRN_BASE_URL;
  const child = startNode('cairn serve', ['bin/cairn.js', 'serve'], env);
  const baseUrl = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  try {
    await waitForHealth(child, baseUrl);
    // Warm-up, not measured: every client's connection open and the owner API's code paths run.
    await Promise.all(
      plan.map(async () => {
        for (let i = 0; i < 4; i++) {
          const res = await fetch(`${baseUrl}/v1/rewards/balance`, { headers });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`warm-up answered ${res.status}`);
        }
      }),
    );
    let firstOther: string | null = null;
    const run = await race(plan, async (_c, r) => {
      const res = await fetch(`${baseUrl}/v1/rewards/approvals/${r.approvalId}/decision`, {
        method: 'POST',
        headers,
        body: '{"action":"approve"}',
      });
      const body = (await res.json()) as { status?: string; error?: { code?: string } };
      if (res.status === 200 && body.status === 'APPROVED') return 'PAID';
      if (res.status === 409 && body.error?.code === 'APPROVAL_NOT_PENDING') return 'REFUSED';
      firstOther ??= `${res.status} ${JSON.stringify(body).slice(0, 300)}`;
      return `HTTP_${res.status}_${body.error?.code ?? body.status}`;
    });
    if (firstOther) process.stderr.write(`cairn: unexpected answer: ${firstOther}\n`);
    return run;
  } finally {
    await stop(child);
    if (child.process.exitCode !== 0 && child.process.exitCode !== null) {
      process.stderr.write(`cairn serve exited ${child.process.exitCode}:\n${child.tail()}\n`);
    }
    removeTempDir(dataDir);
  }
}

/** Copies of the four ledger tables, same columns, keys, checks and indexes, in a schema of their own. */
const PLAIN_DDL = `
create schema ${PLAIN};
create table ${PLAIN}.fund_accounts (
  id text primary key, key text not null, kind text not null, owner_id text, currency text not null,
  created_at timestamptz not null);
create unique index on ${PLAIN}.fund_accounts (key);
create index on ${PLAIN}.fund_accounts (owner_id);
create table ${PLAIN}.fund_transactions (
  id text primary key, kind text not null, purpose_key text not null, currency text not null,
  campaign_id text, task_id text, actor text not null, note text, created_at timestamptz not null);
create unique index on ${PLAIN}.fund_transactions (purpose_key);
create table ${PLAIN}.fund_postings (
  id bigserial primary key,
  transaction_id text not null references ${PLAIN}.fund_transactions (id),
  account_id text not null references ${PLAIN}.fund_accounts (id),
  amount bigint not null check (amount <> 0), created_at timestamptz not null);
create index on ${PLAIN}.fund_postings (account_id, id);
create index on ${PLAIN}.fund_postings (transaction_id);
create table ${PLAIN}.reward_approvals (
  id text primary key, task_id text not null, campaign_id text not null, owner_id text not null,
  submission_id text not null, worker_agent_id text not null, worker_owner_id text not null,
  requested_by text not null, currency text not null, amount bigint not null, status text not null,
  reason text, decided_by text, decided_at timestamptz, transaction_id text, created_at timestamptz not null);
create unique index on ${PLAIN}.reward_approvals (task_id) where status = 'PENDING';
create index on ${PLAIN}.reward_approvals (owner_id, status, created_at);
insert into ${PLAIN}.fund_accounts select id, key, kind, owner_id, currency, created_at from public.fund_accounts;
insert into ${PLAIN}.fund_transactions
  select id, kind, purpose_key, currency, campaign_id, task_id, actor, note, created_at from public.fund_transactions;
insert into ${PLAIN}.fund_postings select id, transaction_id, account_id, amount, created_at from public.fund_postings;
select setval(pg_get_serial_sequence('${PLAIN}.fund_postings', 'id'), (select max(id) from ${PLAIN}.fund_postings));
insert into ${PLAIN}.reward_approvals
  select id, task_id, campaign_id, owner_id, submission_id, worker_agent_id, worker_owner_id, requested_by,
         currency, amount, status, reason, decided_by, decided_at, transaction_id, created_at
  from public.reward_approvals;
analyze ${PLAIN}.fund_accounts, ${PLAIN}.fund_transactions, ${PLAIN}.fund_postings, ${PLAIN}.reward_approvals;`;

/** One decision as a plain SQL transaction: what the payout needs, without Cairn around it. */
async function plainDecide(db: pg.Client, approvalId: string): Promise<string> {
  await db.query('begin');
  try {
    const { rows } = await db.query(
      `select task_id, campaign_id, owner_id, worker_owner_id, currency, amount, status
         from ${PLAIN}.reward_approvals where id = $1 for update`,
      [approvalId],
    );
    const a = rows[0];
    if (a?.status !== 'PENDING') {
      await db.query('rollback');
      return 'REFUSED';
    }
    const escrowKey = `escrow:${a.task_id}:${a.currency}`;
    const payeeKey = `owner:${a.worker_owner_id}:${a.currency}`;
    await db.query(
      `insert into ${PLAIN}.fund_accounts (id, key, kind, owner_id, currency, created_at)
       values ($1, $2, 'OWNER', $3, $4, now()) on conflict (key) do nothing`,
      [`fac_${randomUUID()}`, payeeKey, a.worker_owner_id, a.currency],
    );
    const accounts = await db.query(`select id, key from ${PLAIN}.fund_accounts where key = any($1)`, [
      [escrowKey, payeeKey],
    ]);
    const idOf = (k: string) => accounts.rows.find((r) => r.key === k)?.id as string;
    const made = await db.query(
      `insert into ${PLAIN}.fund_transactions (id, kind, purpose_key, currency, campaign_id, task_id, actor, note, created_at)
       values ($1, 'RELEASE', $2, $3, $4, $5, $6, $7, now()) on conflict (purpose_key) do nothing returning id`,
      [
        `ftx_${randomUUID()}`,
        `settle:${a.task_id}`,
        a.currency,
        a.campaign_id,
        a.task_id,
        `owner:${a.owner_id}`,
        `reward approved (${approvalId})`,
      ],
    );
    const transactionId = made.rows[0]?.id as string | undefined;
    if (!transactionId) {
      await db.query('rollback');
      return 'REFUSED';
    }
    await db.query(
      `insert into ${PLAIN}.fund_postings (transaction_id, account_id, amount, created_at)
       values ($1, $2, $3, now()), ($1, $4, $5, now())`,
      [transactionId, idOf(escrowKey), -Number(a.amount), idOf(payeeKey), Number(a.amount)],
    );
    await db.query(
      `update ${PLAIN}.reward_approvals set status = 'APPROVED', decided_by = $2, decided_at = now(), transaction_id = $3
        where id = $1`,
      [approvalId, `owner:${a.owner_id}`, transactionId],
    );
    await db.query('commit');
    return 'PAID';
  } catch (err) {
    await db.query('rollback').catch(() => {});
    throw err;
  }
}

async function plainRun(url: string, plan: PendingRelease[][]) {
  const clients = plan.map(() => new pg.Client({ connectionString: url }));
  await Promise.all(clients.map((c) => c.connect()));
  try {
    // Warm-up, not measured: each connection has run a statement on the tables.
    await Promise.all(clients.map((c) => c.query(`select count(*) from ${PLAIN}.reward_approvals`)));
    return await race(plan, (c, r) => plainDecide(clients[c] as pg.Client, r.approvalId));
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

/**
 * Double payments as the database shows them, in `schema`: tasks with more than one RELEASE,
 * tasks whose approval was answered as paid more than once, and worker owners holding more than
 * their agents' tasks were worth. Also how many tasks were paid at all, and owners paid short.
 */
async function audit(
  db: pg.Client,
  schema: string,
  releases: PendingRelease[],
  winners: Map<string, number>,
) {
  const released = await db.query<{ task_id: string; n: number }>(
    `select task_id, count(*)::int as n from ${schema}.fund_transactions
      where kind = 'RELEASE' and task_id = any($1) group by task_id`,
    [releases.map((r) => r.taskId)],
  );
  const perTask = new Map(released.rows.map((r) => [r.task_id, r.n]));
  const earned = new Map<string, number>();
  for (const r of releases) earned.set(r.workerOwnerId, (earned.get(r.workerOwnerId) ?? 0) + REWARD);
  const held = await db.query<{ owner_id: string; balance: string }>(
    `select a.owner_id, coalesce(sum(p.amount), 0) as balance from ${schema}.fund_accounts a
       left join ${schema}.fund_postings p on p.account_id = a.id
      where a.kind = 'OWNER' and a.owner_id = any($1) group by a.owner_id`,
    [[...earned.keys()]],
  );
  const overpaid = held.rows.filter((r) => Number(r.balance) > (earned.get(r.owner_id) ?? 0)).length;
  const twiceInLedger = [...perTask.values()].filter((n) => n > 1).length;
  const twiceAnswered = [...winners.values()].filter((n) => n > 1).length;
  const paid = releases.filter((r) => perTask.has(r.taskId)).length;
  const underpaid = held.rows.filter((r) => Number(r.balance) < (earned.get(r.owner_id) ?? 0)).length;
  return {
    doublePayments: twiceInLedger + twiceAnswered + overpaid,
    detail: `tasks with 2+ RELEASE ${twiceInLedger}, tasks with 2+ approvals answered ${twiceAnswered}, owners above what they earned ${overpaid}`,
    paid,
    underpaid,
  };
}

/** The plain tables' own books: every transaction balanced, the sum of all accounts zero. */
async function plainBooks(db: pg.Client) {
  const { rows } = await db.query<{ unbalanced: number; total: string }>(
    `select (select count(*)::int from (select transaction_id from ${PLAIN}.fund_postings
               group by transaction_id having sum(amount) <> 0) u) as unbalanced,
            (select coalesce(sum(amount), 0) from ${PLAIN}.fund_postings) as total`,
  );
  const r = rows[0] as { unbalanced: number; total: string };
  return {
    ok: r.unbalanced === 0 && Number(r.total) === 0,
    unbalanced: r.unbalanced,
    total: Number(r.total),
  };
}

export async function runRewardsBenchmark(): Promise<number> {
  const serverUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    process.stdout.write(
      `rewards: skipped. This benchmark runs on PostgreSQL only: set DATABASE_URL (or TEST_DATABASE_URL) to a server it may create the database ${DB_NAME} on.\n`,
    );
    return 0;
  }
  const url = await freshDatabase(serverUrl);
  const secret = randomBytes(32).toString('hex');
  const database = await openDatabase({ tables: TABLES, databaseUrl: url, poolSize: 8 });
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const started = performance.now();
    const prepared = await preparePendingReleases(database, url, secret, {
      tasks: TASKS,
      workers: WORKERS,
      reward: REWARD,
    });
    await db.query(PLAIN_DDL);
    process.stdout.write(
      `rewards: ${TASKS} paid tasks of ${REWARD} points, each VERIFIED with a release request pending, prepared in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    process.stdout.write(
      `rewards: ${DECISIONS.toLocaleString('en')} approve decisions from ${CLIENTS} concurrent clients, ${PER_TASK} per task at once (1 pays, ${PER_TASK - 1} refused)\n`,
    );
    const plan = schedule(prepared.releases);

    const cairn = await cairnRun(url, secret, prepared.token, plan);
    const cairnSummary = summarise('cairn', cairn);
    const plain = await plainRun(url, plan);
    const plainSummary = summarise('plain SQL', plain);
    process.stdout.write(
      `           (cairn: HTTP owner API on one \`cairn serve\` with a pool of ${process.env.CAIRN_DB_POOL_SIZE || 10} connections; plain: ${CLIENTS} pg connections)\n`,
    );

    const cairnAudit = await audit(db, 'public', prepared.releases, cairnSummary.winners);
    const plainAudit = await audit(db, PLAIN, prepared.releases, plainSummary.winners);
    process.stdout.write(
      `cairn      paid ${cairnAudit.paid} of ${TASKS} tasks; ${cairnAudit.detail}\nplain SQL  paid ${plainAudit.paid} of ${TASKS} tasks; ${plainAudit.detail}\n`,
    );
    const funds = await new FundsService(database, systemClock, '', new ManualCredit(), 0).check();
    const rewards = await new RewardOwnerService(database, systemClock, '', 'http://127.0.0.1').check();
    const books = await plainBooks(db);
    const coordinator = await db.query<{ balance: string }>(
      `select coalesce(sum(p.amount), 0) as balance from fund_accounts a join fund_postings p on p.account_id = a.id
        where a.kind = 'OWNER' and a.owner_id = $1`,
      [prepared.coordinatorOwnerId],
    );
    const invariantOk = funds.ok && rewards.ok;
    process.stdout.write(
      `invariant_check=${invariantOk ? 'ok' : 'FAILED'} (cairn rewards check: ${funds.accounts} accounts, ${funds.transactions} transactions, ${funds.postings} postings, sum by currency ${JSON.stringify(funds.sum_by_currency)}, unbalanced ${funds.unbalanced_transactions.length}, negative ${funds.negative_accounts.length}; ${rewards.rewards} rewards, escrow mismatches ${rewards.escrow_mismatches.length}, double approvals ${rewards.double_payments}; campaign owner's balance ${coordinator.rows[0]?.balance ?? 0})\n`,
    );
    process.stdout.write(
      `plain_books=${books.ok ? 'ok' : 'FAILED'} (unbalanced ${books.unbalanced}, sum ${books.total})\n`,
    );
    process.stdout.write(`double_payments=${cairnAudit.doublePayments}\n`);
    process.stdout.write(`plain_double_payments=${plainAudit.doublePayments}\n`);

    const problems: string[] = [];
    if (cairnAudit.doublePayments > 0 || plainAudit.doublePayments > 0) problems.push('a double payment');
    if (cairnAudit.paid !== TASKS || cairnAudit.underpaid > 0) problems.push('cairn left a task unpaid');
    if (plainAudit.paid !== TASKS || plainAudit.underpaid > 0) problems.push('plain SQL left a task unpaid');
    const refusedOnly = (counts: Map<string, number>) =>
      counts.get('PAID') === TASKS && counts.get('REFUSED') === DECISIONS - TASKS && counts.size === 2;
    if (!refusedOnly(cairnSummary.counts))
      problems.push('cairn answered other than 100 paid and 900 refused');
    if (!refusedOnly(plainSummary.counts))
      problems.push('plain SQL decided other than 100 paid and 900 refused');
    if (!invariantOk) problems.push('the invariant check failed');
    if (!books.ok) problems.push("the plain tables' books do not balance");
    if (Number(coordinator.rows[0]?.balance ?? 0) !== 0) {
      problems.push("the campaign owner's balance is not zero after every reward was paid out");
    }
    if (problems.length > 0) {
      process.stderr.write(`FAILED: ${problems.join('; ')}.\n`);
      return 1;
    }
    process.stdout.write(`cairn_seconds=${cairn.seconds.toFixed(2)}\n`);
    process.stdout.write(`plain_seconds=${plain.seconds.toFixed(2)}\n`);
    process.stdout.write(`rewards_ratio=${(cairn.seconds / plain.seconds).toFixed(2)}\n`);
    return 0;
  } finally {
    await db.end();
    await database.close();
    await dropDatabase(serverUrl);
  }
}

async function admin<T>(serverUrl: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** Drops and creates the bench's own database on the server of `serverUrl`; returns its URL. */
async function freshDatabase(serverUrl: string): Promise<string> {
  await admin(serverUrl, async (c) => {
    await c.query(`drop database if exists ${DB_NAME} with (force)`);
    await c.query(`create database ${DB_NAME}`);
  });
  const url = new URL(serverUrl);
  url.pathname = `/${DB_NAME}`;
  return url.toString();
}

function dropDatabase(serverUrl: string): Promise<void> {
  return admin(serverUrl, async (c) => {
    await c.query(`drop database if exists ${DB_NAME} with (force)`);
  });
}
