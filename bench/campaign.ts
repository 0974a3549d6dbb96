import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  BenchCallError,
  call,
  connect,
  key,
  notifyLatencies,
  percentile,
  provisionAgents,
  type RawSession,
} from './campaign-setup.ts';
import {
  freePort,
  makeTempDir,
  removeTempDir,
  serveEnv,
  startMinimalServer,
  startNode,
  stop,
  waitForHealth,
} from './children.ts';
import { type ClaimRun, claimPlan, floorConnections, plainClaims } from './claim-floor.ts';
import { BENCH_CONDITIONS } from './conditions.ts';
import { type HeldCall, holdAndRelease } from './held-calls.ts';

/**
 * `npm run bench -- campaign` (issue 5 item 12), against one `cairn serve` on the embedded
 * database or on DATABASE_URL:
 * (a) 1,000 claim attempts from 100 clients (100 identities) on 100 tasks, each task contested
 *     by 10 clients at once: claims/s, and winners_per_task, which must be exactly 1;
 * (b) 500 events_watch calls waiting at the end of the ledger, then one appended message: the
 *     wake latency of each watcher from the moment the message was sent, p50 and p99; three
 *     rounds, alternating with the plain node:http baseline below, the median p99 kept.
 * Printed beside (b), two plain baselines measured in the same run: one NOTIFY reaching one
 * LISTEN through the same database layer (the floor of a cross-process wake-up), and the same
 * 500 waiting calls held and released by plain node:http in its own process with no database
 * (the floor of answering them all on this machine).
 * Printed beside (a) on PostgreSQL, the plain-SQL floor of the same attempts (bench/claim-floor.ts:
 * the minimal correct transaction sent with `pg`, same clients, same schedule, as many
 * connections as Cairn's pool, in a database of its own), three rounds, the median kept.
 * After (a), the same clients make as many identity_whoami calls the same way: the ceiling of any
 * Cairn call through this generator on this machine. Before Cairn starts, as many fresh clients make
 * as many calls the same way to the minimal SDK server answering from memory: what a server doing
 * no work at all reaches through this generator on this machine.
 * The figures, each a `name=value` line: claims_per_s, plain_claims_per_s and
 * claim_ratio=<Cairn claims/s ÷ plain claims/s> (target ≥ 0.5, and ≥ 1,000 claims/s),
 * whoami_ceiling_per_s, mcp_ceiling_per_s;
 * watch_p99_ms (target < 100 ms with the load generator on other cores), plain_watch_p99_ms, and
 * last watch_ratio=<Cairn p99 ÷ plain node:http p99> (target ≤ 1.3), the wake-up figure that is
 * fair on one machine (docs/performance.md, "Watch wake-up").
 */

const CLIENTS = 100;
const TASKS = 100;
const ATTEMPTS_PER_CLIENT = 10;
/** Rounds of the plain floor; the median is the baseline (a round lasts well under a second). */
const FLOOR_ROUNDS = 3;
/** BENCH_WATCHERS changes how many calls wait (for finding where time goes); the figure is at 500. */
const WATCHERS = Number(process.env.BENCH_WATCHERS || 500);
/** Rounds of each wake-up; the median p99 of each side is its figure. */
const WATCH_ROUNDS = 3;

async function claims(coordinator: Client, workers: Client[], campaignId: string) {
  const tasks: string[] = [];
  for (let i = 0; i < TASKS; i++) {
    const t = await call(coordinator, 'task_publish', {
      campaign_id: campaignId,
      title: `task ${i}`,
      objective: 'bench',
      acceptance: 'bench',
      conditions: BENCH_CONDITIONS,
      idempotency_key: key(),
    });
    tasks.push(t.task_id as string);
  }
  const winners = new Map<string, number>(tasks.map((t) => [t, 0]));
  let refused = 0;
  const plan = claimPlan(CLIENTS, TASKS, ATTEMPTS_PER_CLIENT);
  const started = performance.now();
  // Client c tries tasks c, c+10, c+20, …: every task is tried by 10 clients, all at once.
  await Promise.all(
    workers.map(async (client, c) => {
      for (const index of plan[c] ?? []) {
        const taskId = tasks[index] as string;
        try {
          await call(client, 'task_claim', { task_id: taskId, idempotency_key: key() });
          winners.set(taskId, (winners.get(taskId) ?? 0) + 1);
        } catch (err) {
          if (!(err instanceof BenchCallError) || err.code !== 'TASK_ALREADY_CLAIMED') throw err;
          refused++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const counts = [...winners.values()];
  const exact = counts.every((n) => n === 1);
  return { attempts: CLIENTS * ATTEMPTS_PER_CLIENT, seconds, refused, exact, counts };
}

/**
 * The same clients making the same number of calls at the same concurrency, each a call of `tool`
 * (one that cannot be refused): calls/s.
 */
async function callRate(clients: Client[], tool: string): Promise<number> {
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let i = 0; i < ATTEMPTS_PER_CLIENT; i++) await call(client, tool, {});
    }),
  );
  return (clients.length * ATTEMPTS_PER_CLIENT) / ((performance.now() - started) / 1000);
}

/**
 * What a server doing no work reaches through this generator on this machine: the minimal SDK
 * server (bench/minimal-server.ts, answering from memory, no database) called as the claims were,
 * by as many fresh clients. A claims/s target above both this and Cairn's cheapest call says more
 * about the machine and the generator than about claiming (docs/performance.md).
 */
async function minimalCeiling(): Promise<number> {
  const { child, baseUrl } = await startMinimalServer();
  try {
    await waitForHealth(child, baseUrl);
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => connect(baseUrl)));
    try {
      // A first round warms the server as the claims' set-up warmed Cairn; the second is kept.
      await callRate(clients, 'whoami');
      return await callRate(clients, 'whoami');
    } finally {
      await Promise.all(clients.map((cl) => cl.close().catch(() => {})));
    }
  } finally {
    await stop(child);
  }
}

/** Threads that hold the waiting calls: answer parsing must not queue on one event loop. */
const WATCH_THREADS = Number(process.env.BENCH_WATCH_THREADS || 4);

/**
 * Holds `calls`, lets them all start waiting, runs `release`, and returns how long after release
 * began each answer arrived (ms); every answer must carry the event.
 */
async function wakeLatencies(calls: HeldCall[], release: () => Promise<unknown>): Promise<number[]> {
  const { answers } = await holdAndRelease(
    calls,
    { threads: WATCH_THREADS, settleMs: 3_000, list: 'events' },
    release,
  );
  if (answers.some((a) => a.count === 0)) throw new Error('a waiting call ended without the event');
  return answers.map((a) => a.afterMs);
}

async function watch(coordinator: Client, watchers: Array<Client & { raw: RawSession }>, campaignId: string) {
  const cursors = await Promise.all(
    watchers.map(
      async (w) => (await call(w, 'context_read', { campaign_id: campaignId })).ledger_cursor as string,
    ),
  );
  const calls = Array.from({ length: WATCHERS }, (_, i) => {
    const w = watchers[i % watchers.length] as Client & { raw: RawSession };
    const args = { campaign_id: campaignId, cursor: cursors[i % watchers.length], wait_seconds: 60 };
    return {
      url: w.raw.url,
      headers: w.raw.headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: { name: 'events_watch', arguments: args },
      }),
    };
  });
  return wakeLatencies(calls, () =>
    call(coordinator, 'message_append', {
      campaign_id: campaignId,
      type: 'NOTE',
      content: 'Wake up.',
      idempotency_key: key(),
    }),
  );
}

/**
 * The same wake-up against plain node:http in its own process (bench/wake-server.mjs), started
 * once and woken once per round.
 */
async function startPlainWake(): Promise<{ wake: () => Promise<number[]>; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = startNode('plain wake server', ['bench/wake-server.mjs'], {
    ...process.env,
    PORT: String(port),
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(child, url);
  } catch (err) {
    await stop(child);
    throw err;
  }
  const calls = Array.from({ length: WATCHERS }, () => ({
    url: `${url}/wait`,
    headers: { 'content-type': 'application/json' },
    body: '{}',
  }));
  return {
    wake: () => wakeLatencies(calls, () => fetch(`${url}/wake`, { method: 'POST' }).then((r) => r.text())),
    stop: () => stop(child),
  };
}

/**
 * Both wake-ups WATCH_ROUNDS times, alternating (Cairn, plain, Cairn, …), so a change in the
 * machine's load between rounds reaches both; each side's figure is the median of its rounds'
 * p99s. One round's p99 moved by half between runs of the same code (docs/performance.md).
 */
async function wakeRounds(cairnRound: () => Promise<number[]>) {
  const plain = await startPlainWake();
  try {
    const rounds: Array<{ cairn: number[]; plain: number[] }> = [];
    for (let r = 0; r < WATCH_ROUNDS; r++)
      rounds.push({ cairn: await cairnRound(), plain: await plain.wake() });
    return rounds;
  } finally {
    await plain.stop();
  }
}

/**
 * The plain-SQL floor of (a): FLOOR_ROUNDS rounds, each must give every task exactly one winner;
 * the median rate is the baseline.
 */
async function claimFloor(
  databaseUrl: string,
): Promise<{ rate: number; all: number[]; connections: number }> {
  const runs: ClaimRun[] = await plainClaims(
    databaseUrl,
    claimPlan(CLIENTS, TASKS, ATTEMPTS_PER_CLIENT),
    TASKS,
    FLOOR_ROUNDS,
  );
  for (const r of runs) {
    if (!r.counts.every((n) => n === 1))
      throw new Error('the plain claim floor gave a task other than one winner');
  }
  const all = runs.map((r) => r.attempts / r.seconds);
  const rate = percentile(all, 50);
  return { rate, all, connections: floorConnections() };
}

export async function runCampaignBenchmark(): Promise<number> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const dataDir = makeTempDir('cairn-bench-campaign-');
  try {
    const where = { databaseUrl, dataDir };
    console.log(`campaign benchmark on ${databaseUrl ? 'PostgreSQL' : 'embedded (PGlite)'}`);
    const baseline = await notifyLatencies(where, 200);
    // The claim floor first, while no Cairn runs: they never compete for the cores.
    const floor = databaseUrl ? await claimFloor(databaseUrl) : null;
    // Likewise what a server doing no work reaches through the claims' clients.
    const mcpCeiling = await minimalCeiling();
    const ids = await provisionAgents(where, CLIENTS + 1);
    const port = await freePort();
    const env = serveEnv({ port, dataDir, databaseUrl });
    const child = startNode('cairn serve', ['bin/cairn.js', 'serve'], env);
    const baseUrl = `http://127.0.0.1:${port}`;
    try {
      await waitForHealth(child, baseUrl);
      const [first, ...rest] = ids;
      if (!first) throw new Error('no identities');
      const coordinator = await connect(baseUrl, first.key);
      const workers = await Promise.all(rest.map((id) => connect(baseUrl, id.key)));
      const created = await call(coordinator, 'campaign_create', {
        title: 'bench',
        objective: 'bench',
        allow_agent_publish: false,
        visibility: 'SHARED',
        participation: 'OPEN',
        idempotency_key: key(),
      });
      const campaignId = created.campaign_id as string;
      for (const w of workers)
        await call(w, 'campaign_join', { campaign_id: campaignId, idempotency_key: key() });

      const c = await claims(coordinator, workers, campaignId);
      console.log(
        `claims: ${c.attempts} attempts on ${TASKS} tasks from ${CLIENTS} clients in ${c.seconds.toFixed(2)} s = ${(c.attempts / c.seconds).toFixed(1)} claims/s; refused TASK_ALREADY_CLAIMED=${c.refused}`,
      );
      // The ceiling under any Cairn call: the cheapest tool (identity_whoami: the authentication
      // lookup and one read, no transaction) through the same clients.
      const ceiling = await callRate(workers, 'identity_whoami');
      console.log(
        `ceiling: ${CLIENTS * ATTEMPTS_PER_CLIENT} identity_whoami calls from the same ${CLIENTS} clients, ${ATTEMPTS_PER_CLIENT} each at once: ${ceiling.toFixed(1)} calls/s`,
      );
      console.log(
        `a server doing no work: ${CLIENTS * ATTEMPTS_PER_CLIENT} calls of the minimal SDK server answering from memory, from ${CLIENTS} fresh clients the same way (after one warm-up round): ${mcpCeiling.toFixed(1)} calls/s`,
      );
      const perTask = c.exact ? '1' : `NOT 1 (min ${Math.min(...c.counts)}, max ${Math.max(...c.counts)})`;
      console.log(`winners_per_task=${perTask}`);
      const cairnRate = c.attempts / c.seconds;
      if (floor) {
        console.log(
          `baseline plain SQL claims (pg, ${floor.connections} pooled connections, ${CLIENTS} clients, median of ${FLOOR_ROUNDS} rounds: ${floor.all.map((r) => r.toFixed(0)).join(', ')} claims/s): ${floor.rate.toFixed(1)} claims/s; winners_per_task=1`,
        );
        // Said in the run itself when the ratio target is above both ceilings.
        if (floor.rate / 2 > Math.max(mcpCeiling, ceiling)) {
          console.log(
            `note: claim_ratio >= 0.5 needs ${(floor.rate / 2).toFixed(0)} claims/s; through these clients on this machine a server answering from memory reaches ${mcpCeiling.toFixed(0)} calls/s and Cairn's cheapest call ${ceiling.toFixed(0)}`,
          );
        }
      } else {
        console.log(
          'baseline plain SQL claims: PostgreSQL only (set DATABASE_URL); no claim_ratio on the embedded database',
        );
      }

      const rounds = await wakeRounds(() => watch(coordinator, workers, campaignId));
      await Promise.all([coordinator, ...workers].map((cl) => cl.close().catch(() => {})));
      console.log(
        `baseline NOTIFY→LISTEN (one listener, plain database layer): p50=${percentile(baseline, 50).toFixed(1)}ms p99=${percentile(baseline, 99).toFixed(1)}ms`,
      );
      const summary = (side: 'cairn' | 'plain') =>
        rounds
          .map(
            (r) => `p50=${percentile(r[side], 50).toFixed(1)}ms p99=${percentile(r[side], 99).toFixed(1)}ms`,
          )
          .join('; ');
      console.log(
        `baseline plain node:http releasing ${WATCHERS} waiting calls at once, ${WATCH_ROUNDS} rounds: ${summary('plain')}`,
      );
      console.log(
        `events_watch wake-up of ${WATCHERS} waiting calls after one message, ${WATCH_ROUNDS} rounds: ${summary('cairn')}`,
      );
      if (!c.exact) {
        process.stderr.write('FAILED: a task had other than exactly one winner.\n');
        return 1;
      }
      console.log(`claims_per_s=${cairnRate.toFixed(1)}`);
      if (floor) {
        console.log(`plain_claims_per_s=${floor.rate.toFixed(1)}`);
        console.log(`claim_ratio=${(cairnRate / floor.rate).toFixed(2)}`);
      }
      console.log(`whoami_ceiling_per_s=${ceiling.toFixed(1)}`);
      console.log(`mcp_ceiling_per_s=${mcpCeiling.toFixed(1)}`);
      const cairnP99 = percentile(
        rounds.map((r) => percentile(r.cairn, 99)),
        50,
      );
      const plainP99 = percentile(
        rounds.map((r) => percentile(r.plain, 99)),
        50,
      );
      console.log(`watch_p99_ms=${cairnP99.toFixed(1)}`);
      console.log(`plain_watch_p99_ms=${plainP99.toFixed(1)}`);
      console.log(`watch_ratio=${(cairnP99 / plainP99).toFixed(2)}`);
      return 0;
    } finally {
      await stop(child);
    }
  } finally {
    removeTempDir(dataDir);
  }
}
