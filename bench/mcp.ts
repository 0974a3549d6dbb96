import { call, connect, key } from './campaign-setup.ts';
import {
  type Child,
  freePort,
  makeTempDir,
  removeTempDir,
  serveEnv,
  startMinimalServer,
  startNode,
  stop,
  waitForHealth,
} from './children.ts';
import { BENCH_CONDITIONS, MINIMAL_CAMPAIGN_ID, MINIMAL_TASK_ID } from './conditions.ts';
import { type LoadOptions, type LoadResult, runLoad } from './load.ts';
import { provision } from './provision.ts';

/**
 * `npm run bench -- mcp`: tools/call identity_whoami against Cairn, and the same load against a
 * minimal server built with the same SDK, one after the other so they never compete for CPU.
 * Then two calls that touch the database (issue 23 item 3), on the tracked database only
 * (PostgreSQL when DATABASE_URL is set): task_get of one task and message_append to one campaign
 * (every client a member's session; each call a new idempotency key), against the same minimal
 * server answering both from memory. mcp_db_ratio is the lower of the two ratios (target ≥ 0.5).
 * Figures, each a `name=value` line: cairn_rps and minimal_rps (whoami, tracked database);
 * cairn_<tool>_rps, minimal_<tool>_rps and <tool>_ratio for each; mcp_db_ratio; and last mcp_ratio=<cairn rps / minimal
 * rps> for identity_whoami (target ≥ 0.7 on PostgreSQL). More than 1% failed calls makes the run
 * invalid: no ratio, exit code 1.
 */

/** The bar for a real figure; shorter runs are allowed as smoke tests. */
const MIN_SECONDS = 10;
const WARMUP_SECONDS = 1;
const MAX_ERROR_RATE = 0.01;

interface Settings {
  seconds: number;
  clients: number;
  databaseUrl: string | undefined;
}

class SettingsError extends Error {}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  const seconds = Number(env.BENCH_SECONDS || MIN_SECONDS);
  const clients = Number(env.BENCH_CLIENTS || 64);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new SettingsError(`BENCH_SECONDS must be a positive number of seconds (got ${env.BENCH_SECONDS}).`);
  }
  if (!Number.isInteger(clients) || clients < 1 || clients > 10_000) {
    throw new SettingsError(`BENCH_CLIENTS must be an integer from 1 to 10000 (got ${env.BENCH_CLIENTS}).`);
  }
  return { seconds, clients, databaseUrl: env.DATABASE_URL || undefined };
}

/** Starts a server child, waits for /health, loads it, and always stops it. */
async function measure(child: Child, baseUrl: string, load: Omit<LoadOptions, 'url'>): Promise<LoadResult> {
  try {
    await waitForHealth(child, baseUrl);
    return await runLoad({ ...load, url: `${baseUrl}/mcp` });
  } finally {
    await stop(child);
  }
}

async function measureCairn(s: Settings, databaseUrl: string | undefined): Promise<LoadResult> {
  const dataDir = makeTempDir('cairn-bench-');
  try {
    const port = await freePort();
    // DATABASE_URL (and any other CAIRN_* tuning, e.g. CAIRN_DB_POOL_SIZE) passes through from our env.
    const env = serveEnv({ port, dataDir, databaseUrl });
    const { agentId, key } = await provision(env);
    const child = startNode('cairn serve', ['bin/cairn.js', 'serve'], env);
    return await measure(child, `http://127.0.0.1:${port}`, {
      headers: { authorization: `Bearer ${key}` },
      tool: 'identity_whoami',
      clients: s.clients,
      warmupSeconds: WARMUP_SECONDS,
      seconds: s.seconds,
      // A call answered for the wrong identity would be a fast wrong answer, not throughput.
      check: (r) =>
        (r as { agent_id?: unknown })?.agent_id === agentId ? null : `wrong whoami: ${JSON.stringify(r)}`,
    });
  } finally {
    removeTempDir(dataDir);
  }
}

const DB_TOOLS = ['task_get', 'message_append'] as const;
type DbTool = (typeof DB_TOOLS)[number];

function messageArgs(campaignId: string): () => Record<string, unknown> {
  return () => ({ campaign_id: campaignId, type: 'NOTE', content: 'A bench note.', idempotency_key: key() });
}

/**
 * task_get and message_append on one `cairn serve`, one after the other: one identity (READ)
 * creates a campaign and publishes a task, then every client calls as that member.
 */
async function measureCairnDb(
  s: Settings,
  databaseUrl: string | undefined,
): Promise<Record<DbTool, LoadResult>> {
  const dataDir = makeTempDir('cairn-bench-db-');
  try {
    const port = await freePort();
    const env = serveEnv({ port, dataDir, databaseUrl });
    const { key: bearer } = await provision(env, 'READ');
    const child = startNode('cairn serve', ['bin/cairn.js', 'serve'], env);
    const baseUrl = `http://127.0.0.1:${port}`;
    try {
      await waitForHealth(child, baseUrl);
      const setup = await connect(baseUrl, bearer);
      const campaign = await call(setup, 'campaign_create', {
        title: 'bench',
        objective: 'bench',
        allow_agent_publish: false,
        visibility: 'SHARED',
        participation: 'OPEN',
        idempotency_key: key(),
      });
      const campaignId = campaign.campaign_id as string;
      const task = await call(setup, 'task_publish', {
        campaign_id: campaignId,
        title: 'bench task',
        objective: 'bench',
        acceptance: 'bench',
        conditions: BENCH_CONDITIONS,
        idempotency_key: key(),
      });
      const taskId = task.task_id as string;
      await setup.close();
      return await dbLoads(s, baseUrl, { authorization: `Bearer ${bearer}` }, taskId, campaignId);
    } finally {
      await stop(child);
    }
  } finally {
    removeTempDir(dataDir);
  }
}

/** The same two calls against the minimal server, answering from memory. */
async function measureMinimalDb(s: Settings): Promise<Record<DbTool, LoadResult>> {
  const { child, baseUrl } = await startMinimalServer();
  try {
    await waitForHealth(child, baseUrl);
    return await dbLoads(s, baseUrl, {}, MINIMAL_TASK_ID, MINIMAL_CAMPAIGN_ID);
  } finally {
    await stop(child);
  }
}

/** task_get of one task, then message_append to one campaign, each at the settings' load. */
async function dbLoads(
  s: Settings,
  baseUrl: string,
  headers: Record<string, string>,
  taskId: string,
  campaignId: string,
): Promise<Record<DbTool, LoadResult>> {
  const common = {
    url: `${baseUrl}/mcp`,
    headers,
    clients: s.clients,
    warmupSeconds: WARMUP_SECONDS,
    seconds: s.seconds,
  };
  const taskGet = await runLoad({
    ...common,
    tool: 'task_get',
    args: { task_id: taskId },
    check: (r) =>
      (r as { task_id?: unknown })?.task_id === taskId
        ? null
        : `wrong task: ${JSON.stringify(r).slice(0, 300)}`,
  });
  const messageAppend = await runLoad({
    ...common,
    tool: 'message_append',
    args: messageArgs(campaignId),
    check: (r) =>
      typeof (r as { message_id?: unknown })?.message_id === 'string'
        ? null
        : `no message_id: ${JSON.stringify(r).slice(0, 300)}`,
  });
  return { task_get: taskGet, message_append: messageAppend };
}

async function measureMinimal(s: Settings): Promise<LoadResult> {
  const { child, baseUrl } = await startMinimalServer();
  return measure(child, baseUrl, {
    headers: {},
    tool: 'whoami',
    clients: s.clients,
    warmupSeconds: WARMUP_SECONDS,
    seconds: s.seconds,
    check: (r) =>
      r && typeof r === 'object' && 'agent_id' in r ? null : `unexpected result: ${JSON.stringify(r)}`,
  });
}

function line(name: string, r: LoadResult): string {
  return `${name.padEnd(15)} rps=${r.rps.toFixed(1)} p50=${r.p50Ms.toFixed(1)}ms p99=${r.p99Ms.toFixed(1)}ms calls=${r.calls} errors=${r.errors}`;
}

/** Says what is wrong with a run's errors, or null when it is usable. */
function errorProblem(name: string, r: LoadResult): string | null {
  if (r.calls === 0) return `${name}: no call completed in the measured window.`;
  const rate = r.errors / r.calls;
  if (r.errors > 0) process.stderr.write(`${name}: ${r.errors} failed calls; the first: ${r.firstError}\n`);
  if (rate <= MAX_ERROR_RATE) return null;
  return `${name}: ${(rate * 100).toFixed(1)}% of calls failed (more than ${MAX_ERROR_RATE * 100}%); the run is not valid.`;
}

export async function runMcpBenchmark(): Promise<number> {
  let s: Settings;
  try {
    s = readSettings(process.env);
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return 2;
  }
  const smoke = s.seconds < MIN_SECONDS ? ` (smoke run: below ${MIN_SECONDS} s, not a real figure)` : '';
  const databases = s.databaseUrl ? 'embedded (PGlite) and PostgreSQL' : 'embedded (PGlite)';
  console.log(`mcp benchmark: ${s.clients} clients, ${s.seconds} s each, cairn on ${databases}${smoke}`);

  // The baseline first, then Cairn on each database: one server at a time, never competing for CPU.
  const minimal = await measureMinimal(s);
  console.log(line('minimal', minimal));
  const runs: Array<[string, LoadResult]> = [['cairn-embedded', await measureCairn(s, undefined)]];
  console.log(line(runs[0]![0], runs[0]![1]));
  if (s.databaseUrl) {
    runs.push(['cairn-postgres', await measureCairn(s, s.databaseUrl)]);
    console.log(line(runs[1]![0], runs[1]![1]));
  }

  // The calls that touch the database: the tracked database only, the minimal server first.
  const trackedDb = s.databaseUrl ? 'postgres' : 'embedded';
  const minimalDb = await measureMinimalDb(s);
  for (const tool of DB_TOOLS) console.log(line(`minimal ${tool}`, minimalDb[tool]));
  const cairnDb = await measureCairnDb(s, s.databaseUrl);
  for (const tool of DB_TOOLS) console.log(line(`cairn-${trackedDb} ${tool}`, cairnDb[tool]));

  const problems = [
    errorProblem('minimal', minimal),
    ...runs.map(([n, r]) => errorProblem(n, r)),
    ...DB_TOOLS.flatMap((tool) => [
      errorProblem(`minimal ${tool}`, minimalDb[tool]),
      errorProblem(`cairn-${trackedDb} ${tool}`, cairnDb[tool]),
    ]),
  ].filter((p) => p !== null);
  if (problems.length > 0) {
    process.stderr.write(`FAILED: ${problems.join('\n')}\n`);
    return 1;
  }
  for (const [name, r] of runs) console.log(`${name} ratio=${(r.rps / minimal.rps).toFixed(2)}`);
  // The tracked figure: PostgreSQL's when it ran (the target is set there), else the embedded one.
  const tracked = runs.at(-1)![1];
  const dbRatios = DB_TOOLS.map((tool) => cairnDb[tool].rps / minimalDb[tool].rps);
  console.log(`cairn_rps=${tracked.rps.toFixed(1)}`);
  console.log(`minimal_rps=${minimal.rps.toFixed(1)}`);
  DB_TOOLS.forEach((tool, i) => {
    console.log(`cairn_${tool}_rps=${cairnDb[tool].rps.toFixed(1)}`);
    console.log(`minimal_${tool}_rps=${minimalDb[tool].rps.toFixed(1)}`);
    console.log(`${tool}_ratio=${dbRatios[i]!.toFixed(2)}`);
  });
  console.log(`mcp_db_ratio=${Math.min(...dbRatios).toFixed(2)}`);
  console.log(`mcp_ratio=${(tracked.rps / minimal.rps).toFixed(2)}`);
  return 0;
}
