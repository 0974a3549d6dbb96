import {
  type Child,
  freePort,
  makeTempDir,
  removeTempDir,
  startNode,
  stop,
  waitForHealth,
} from './children.ts';
import { type LoadOptions, type LoadResult, runLoad } from './load.ts';
import { provision } from './provision.ts';

/**
 * `npm run bench -- mcp`: tools/call identity_whoami against Cairn, and the same load against a
 * minimal server built with the same SDK, one after the other so they never compete for CPU.
 * The last line, mcp_ratio=<cairn rps / minimal rps>, is the figure to track (target ≥ 0.7 on
 * PostgreSQL). More than 1% failed calls makes the run invalid: no ratio, exit code 1.
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
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      CAIRN_DATA_DIR: dataDir,
      // The benchmark measures throughput; the per-identity limit would make it measure the limiter.
      CAIRN_MCP_RATE_LIMIT: '10000000',
    };
    if (databaseUrl) env.DATABASE_URL = databaseUrl;
    else delete env.DATABASE_URL;
    // Links Cairn builds must point at this server, not at a deployment's public address.
    delete env.CAIRN_BASE_URL;
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

async function measureMinimal(s: Settings): Promise<LoadResult> {
  const port = await freePort();
  const child = startNode('minimal server', ['--import', 'tsx', 'bench/minimal-server.ts'], {
    ...process.env,
    PORT: String(port),
  });
  return measure(child, `http://127.0.0.1:${port}`, {
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

  const problems = [errorProblem('minimal', minimal), ...runs.map(([n, r]) => errorProblem(n, r))].filter(
    (p) => p !== null,
  );
  if (problems.length > 0) {
    process.stderr.write(`FAILED: ${problems.join('\n')}\n`);
    return 1;
  }
  for (const [name, r] of runs) console.log(`${name} ratio=${(r.rps / minimal.rps).toFixed(2)}`);
  // The tracked figure: PostgreSQL's when it ran (the target is set there), else the embedded one.
  const tracked = runs.at(-1)![1];
  console.log(`mcp_ratio=${(tracked.rps / minimal.rps).toFixed(2)}`);
  return 0;
}
