import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { provisionAgents } from './campaign-setup.ts';
import { makeTempDir, removeTempDir } from './children.ts';
import { BENCH_CONDITIONS } from './conditions.ts';

/**
 * The plain-SQL floor of contested claiming (issue 23 item 1), printed by `npm run bench --
 * campaign` beside Cairn's claims/s: the same attempts, by the same number of concurrent
 * clients on the same schedule (see claimPlan), made directly with `pg` as the minimal correct
 * transaction, one per attempt:
 *
 *   BEGIN
 *   UPDATE tasks … WHERE id = $1 AND status = 'OPEN' RETURNING …   (the conditional update decides)
 *   INSERT INTO task_leases …                                        (winners only)
 *   WITH next AS (UPDATE campaigns SET last_seq = last_seq + 1 …),   (winners only: the ledger
 *        added AS (INSERT INTO campaign_events …)                     event, its seq from the
 *   SELECT seq, pg_notify('cairn_ledger', campaign_id) FROM added     campaign row, and NOTIFY)
 *   COMMIT                                                            (a loser: ROLLBACK)
 *
 * It runs on Cairn's own schema (the migrations applied) in a database of its own,
 * cairn_bench_claims, made on the server of DATABASE_URL and dropped afterwards: Cairn's data is
 * never touched. The clients share a pool of as many connections as `cairn serve` uses
 * (CAIRN_DB_POOL_SIZE, default 10; BENCH_CLAIM_CONNECTIONS overrides), and each attempt checks
 * one out for its transaction, as Cairn does.
 */

const FLOOR_DB = 'cairn_bench_claims';

/**
 * Which task client `c` tries in its round `k` (the campaign benchmark's pattern): tasks c,
 * c+10, c+20, … so every task is tried by 10 clients, all running at once.
 */
export function claimPlan(clients: number, tasks: number, attemptsPerClient: number): number[][] {
  const step = tasks / attemptsPerClient;
  return Array.from({ length: clients }, (_, c) =>
    Array.from({ length: attemptsPerClient }, (_, k) => (c + k * step) % tasks),
  );
}

export interface ClaimRun {
  attempts: number;
  seconds: number;
  /** How many attempts won, per task. */
  counts: number[];
}

/** The connection count of the floor: Cairn's pool size unless BENCH_CLAIM_CONNECTIONS says otherwise. */
export function floorConnections(env: NodeJS.ProcessEnv = process.env): number {
  return Number(env.BENCH_CLAIM_CONNECTIONS || env.CAIRN_DB_POOL_SIZE || 10);
}

async function admin(serverUrl: string, sqlText: string): Promise<void> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(sqlText);
  } finally {
    await c.end();
  }
}

function floorUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${FLOOR_DB}`;
  return url.toString();
}

const CONDITIONS = JSON.stringify(BENCH_CONDITIONS);

const CLAIM = `update tasks set status = 'CLAIMED', version = version + 1, updated_at = $2
  where id = $1 and status = 'OPEN' returning campaign_id, version`;
const LEASE = `insert into task_leases (id, task_id, campaign_id, agent_id, claimed_at, execution_deadline)
  values ($1, $2, $3, $4, $5, $6)`;
const EVENT = `with next as (
    update campaigns set last_seq = last_seq + 1 where id = $1 returning last_seq
  ), added as (
    insert into campaign_events (campaign_id, seq, id, kind, actor_agent_id, actor_role, task_id,
      evidence_ids, payload, created_at)
    select $1, next.last_seq, $2, 'TASK_CLAIMED', $3, 'PARTICIPANT', $4, '[]'::jsonb, $5::jsonb, $6
    from next returning seq
  )
  select seq, pg_notify('cairn_ledger', $1) from added`;

/** One attempt as one transaction; true when it won the task. */
async function attempt(pool: pg.Pool, agentId: string, taskId: string): Promise<boolean> {
  const db = await pool.connect();
  let failed: unknown = null;
  try {
    const now = new Date();
    await db.query('begin');
    const won = await db.query<{ campaign_id: string; version: number }>(CLAIM, [taskId, now]);
    const row = won.rows[0];
    if (!row) {
      await db.query('rollback');
      return false;
    }
    const deadline = new Date(now.getTime() + 60 * 60_000);
    await db.query(LEASE, [`lse_${randomUUID()}`, taskId, row.campaign_id, agentId, now, deadline]);
    const payload = JSON.stringify({
      task_id: taskId,
      status: 'CLAIMED',
      execution_deadline: deadline.toISOString(),
      version: row.version,
    });
    const event = await db.query(EVENT, [
      row.campaign_id,
      `evt_${randomUUID()}`,
      agentId,
      taskId,
      payload,
      now,
    ]);
    if (event.rowCount !== 1) throw new Error(`campaign ${row.campaign_id} vanished`);
    await db.query('commit');
    return true;
  } catch (err) {
    failed = err;
    await db.query('rollback').catch(() => {});
    throw err;
  } finally {
    db.release(failed instanceof Error ? failed : undefined);
  }
}

/** One round: `tasks` fresh OPEN tasks in the campaign, then every client's attempts, all clients at once. */
async function oneRound(
  pool: pg.Pool,
  campaignId: string,
  creatorId: string,
  plan: number[][],
  tasks: number,
): Promise<ClaimRun> {
  const taskIds = Array.from({ length: tasks }, () => `tsk_${randomUUID()}`);
  await pool.query(
    `insert into tasks (id, campaign_id, created_by, title, objective, acceptance, conditions, status,
       version, created_at, updated_at)
     select t, $2, $3, 'task', 'bench', 'bench', $4::jsonb, 'OPEN', 1, now(), now()
     from unnest($1::text[]) as t`,
    [taskIds, campaignId, creatorId, CONDITIONS],
  );
  await pool.query('analyze tasks, task_leases, campaign_events');
  const agents = plan.map((_, c) => `agt_floor_${c}`);
  const wins = new Map<string, number>(taskIds.map((t) => [t, 0]));
  const before = await pool.query<{ last: string }>('select last_seq as last from campaigns where id = $1', [
    campaignId,
  ]);
  const started = performance.now();
  await Promise.all(
    plan.map(async (mine, c) => {
      for (const index of mine) {
        const taskId = taskIds[index] as string;
        if (await attempt(pool, agents[c] as string, taskId)) wins.set(taskId, (wins.get(taskId) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // What the floor wrote must be what it claims: one open lease and one event per win.
  const after = await pool.query<{ leases: string; events: string; last: string }>(
    `select (select count(*) from task_leases where ended_at is null and task_id = any($2::text[])) as leases,
            (select count(*) from campaign_events where campaign_id = $1 and task_id = any($2::text[])) as events,
            (select last_seq from campaigns where id = $1) as last`,
    [campaignId, taskIds],
  );
  const won = [...wins.values()].reduce((a, b) => a + b, 0);
  const row = after.rows[0];
  if (
    Number(row?.leases) !== won ||
    Number(row?.events) !== won ||
    Number(row?.last) - Number(before.rows[0]?.last) !== won
  ) {
    throw new Error(`plain claims: ${won} wins but ${JSON.stringify(row)} (leases, events, last seq)`);
  }
  return {
    attempts: plan.reduce((n, mine) => n + mine.length, 0),
    seconds,
    counts: [...wins.values()],
  };
}

/**
 * Makes cairn_bench_claims on the server of `serverUrl` with Cairn's schema, a campaign and
 * for each of `rounds` rounds `tasks` fresh OPEN tasks and `plan` (client → task indexes) run on
 * them with the floor's pooled connections; drops the database. PostgreSQL only: the embedded
 * database has one connection and no floor worth the name.
 */
export async function plainClaims(
  serverUrl: string,
  plan: number[][],
  tasks: number,
  rounds: number,
): Promise<ClaimRun[]> {
  const connections = floorConnections();
  const drop = `drop database if exists ${FLOOR_DB} with (force)`;
  await admin(serverUrl, drop);
  await admin(serverUrl, `create database ${FLOOR_DB}`);
  const url = floorUrl(serverUrl);
  const dataDir = makeTempDir('cairn-bench-claims-');
  try {
    // Cairn's migrations on the floor's own database, an owner and an identity to own its campaign.
    const [creator] = await provisionAgents({ databaseUrl: url, dataDir }, 1);
    if (!creator) throw new Error('no identity for the floor campaign');
    const pool = new pg.Pool({ connectionString: url, max: connections });
    // The drop at the end may still find a connection closing; that is no error of the floor's.
    pool.on('error', () => {});
    try {
      const campaignId = `cmp_${randomUUID()}`;
      await pool.query(
        `insert into campaigns (id, owner_id, created_by, title, objective, scopes, allow_agent_publish,
           visibility, participation, status, created_at)
         select $1, owner_id, id, 'bench', 'bench', '[]'::jsonb, false, 'SHARED', 'OPEN', 'ACTIVE', now()
         from agents where id = $2`,
        [campaignId, creator.agentId],
      );
      await pool.query('analyze campaigns');
      // Every connection open and warm before the clock starts, as Cairn's pool is after set-up.
      await Promise.all(
        Array.from({ length: connections }, async () => {
          const c = await pool.connect();
          await c.query('select 1');
          // Held a moment so each check-out gets a connection of its own.
          await new Promise((r) => setTimeout(r, 50));
          c.release();
        }),
      );
      const runs: ClaimRun[] = [];
      for (let round = 0; round < rounds; round++) {
        runs.push(await oneRound(pool, campaignId, creator.agentId, plan, tasks));
      }
      return runs;
    } finally {
      await pool.end();
    }
  } finally {
    removeTempDir(dataDir);
    await admin(serverUrl, drop);
  }
}
