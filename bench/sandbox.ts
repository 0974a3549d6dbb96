import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TABLES } from '../src/domains/catalog.ts';
import { IdentityService } from '../src/domains/identity/index.ts';
import { systemClock } from '../src/kernel/clock.ts';
import { type ExecResult, execDirect, loadEngine, type SandboxFile } from '../src/sandbox/index.ts';
import { openDatabase } from '../src/storage/database.ts';
import { call, connect, key, percentile } from './campaign-setup.ts';
import {
  freePort,
  makeTempDir,
  removeTempDir,
  serveEnv,
  startNode,
  stop,
  waitForHealth,
} from './children.ts';

/**
 * `npm run bench -- sandbox` (issue 21 item 8): 200 sandbox.exec calls of one small program over
 * MCP, against one `cairn serve` on the embedded database or on DATABASE_URL, in a real Arena run
 * (the owner turns the Arena on and assigns fix-failing-program; the agent starts it), one call
 * after the other. The baseline is the same program over the same workspace tree run directly in
 * the same QuickJS build in this process (execDirect), one run after the other. Both sides are
 * warmed up first with runs that are not timed. The last line, sandbox_ratio=<Cairn ms per exec /
 * direct ms per exec>, is the figure to track: what one call through Cairn costs (MCP, HTTP,
 * the run's checks, the workspace read, the sandbox pool's thread) per run of the engine itself.
 */

const CALLS = 200;
const WARMUP = 10;
const CHALLENGE = 'fix-failing-program';
const PROGRAM_PATH = 'bench/sum.js';
const PROGRAM = `// Sums 1..10000 and prints the sum.
let sum = 0;
for (let i = 1; i <= 10000; i++) sum += i;
console.log(sum);
`;
const EXPECTED_STDOUT = '50005000\n';

interface Provisioned {
  agentId: string;
  key: string;
  ownerToken: string;
}

/**
 * An owner with an owner token and one READ agent with a project key, made through the real
 * identity service on the benchmark's database before `serve` locks an embedded data dir (the
 * database `cairn serve` opens: PostgreSQL, or PGlite in the data dir's `pg` folder).
 */
async function provisionOwnerAndAgent(where: {
  databaseUrl: string | undefined;
  dataDir: string;
}): Promise<Provisioned> {
  const database = await openDatabase(
    where.databaseUrl
      ? { tables: TABLES, databaseUrl: where.databaseUrl }
      : { tables: TABLES, dataDir: path.join(where.dataDir, 'pg') },
  );
  try {
    // Provisioning only: nothing here authenticates, so the audience is never compared.
    const identity = new IdentityService(database, systemClock, 'http://127.0.0.1/mcp');
    const email = `bench-${randomUUID()}@example.org`;
    await identity.addOwner(email, randomBytes(12).toString('hex'));
    const { agent_id } = await identity.addAgent({
      ownerEmail: email,
      displayName: 'bench sandbox',
      runtime: 'bench',
      kind: 'OWNER_CREATED',
    });
    await identity.setMode(agent_id, 'READ');
    const { project_key } = await identity.addProjectKey(agent_id, 1);
    const { token } = await identity.addOwnerToken(email, 'bench', 1);
    return { agentId: agent_id, key: project_key, ownerToken: token };
  } finally {
    await database.close();
  }
}

/** The owner API with the owner token; throws unless it answers `expected`. */
async function ownerPost(baseUrl: string, token: string, route: string, body: unknown, expected: number) {
  const res = await fetch(`${baseUrl}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`POST ${route} answered ${res.status}: ${text.slice(0, 400)}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** The Arena on, fix-failing-program assigned, and the run started by the agent as SPEC says. */
async function startRun(baseUrl: string, who: Provisioned, agent: Client): Promise<string> {
  await ownerPost(baseUrl, who.ownerToken, `/v1/agents/${who.agentId}/arena`, { enabled: true }, 200);
  await ownerPost(
    baseUrl,
    who.ownerToken,
    '/v1/arena/assignments',
    { agent_id: who.agentId, challenge_id: CHALLENGE },
    201,
  );
  const caps = await call(agent, 'capabilities_describe', {});
  const assignment = caps.arena_assignment as { arena_start?: { arguments?: Record<string, unknown> } };
  const args = assignment?.arena_start?.arguments;
  if (!args) throw new Error(`capabilities_describe shows no arena_start: ${JSON.stringify(assignment)}`);
  const started = await call(agent, 'arena_start', { ...args, idempotency_key: key() });
  return started.run_id as string;
}

/** The run's whole workspace as sandbox.exec hands it to the sandbox (path order), read over MCP. */
async function workspaceTree(agent: Client, runId: string): Promise<SandboxFile[]> {
  const listed = await call(agent, 'workspace.list', { run_id: runId });
  const files: SandboxFile[] = [];
  for (const { path: filePath } of listed.files as Array<{ path: string }>) {
    let content = '';
    let offset: number | null = 0;
    while (offset !== null) {
      const read = await call(agent, 'workspace.read', { run_id: runId, path: filePath, offset });
      content += read.content as string;
      offset = (read.range as { next_offset: number | null }).next_offset;
    }
    files.push({ path: filePath, content });
  }
  return files;
}

function checkAnswer(where: string, exitCode: unknown, stdout: unknown): void {
  if (exitCode !== 0 || stdout !== EXPECTED_STDOUT) {
    throw new Error(`${where}: exit ${exitCode}, stdout ${JSON.stringify(stdout)}`);
  }
}

/** `n` sequential sandbox.exec calls; the wall time of each (ms). */
async function cairnExecs(agent: Client, runId: string, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const out = await call(agent, 'sandbox.exec', {
      run_id: runId,
      command: PROGRAM_PATH,
      idempotency_key: key(),
    });
    times.push(performance.now() - started);
    checkAnswer('sandbox.exec', out.exit_code, out.stdout);
  }
  return times;
}

/** `n` sequential execDirect runs of the same program over the same tree; the wall time of each (ms). */
function directExecs(
  engine: Awaited<ReturnType<typeof loadEngine>>,
  files: SandboxFile[],
  n: number,
): number[] {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const out: ExecResult = execDirect(engine, { files, entry: PROGRAM_PATH });
    times.push(performance.now() - started);
    checkAnswer('execDirect', out.exitCode, out.stdout);
  }
  return times;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const describe = (values: number[]) =>
  `mean=${mean(values).toFixed(3)} ms/exec p50=${percentile(values, 50).toFixed(3)}ms p99=${percentile(values, 99).toFixed(3)}ms`;

export async function runSandboxBenchmark(): Promise<number> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const dataDir = makeTempDir('cairn-bench-sandbox-');
  try {
    console.log(`sandbox benchmark on ${databaseUrl ? 'PostgreSQL' : 'embedded (PGlite)'}`);
    const who = await provisionOwnerAndAgent({ databaseUrl, dataDir });
    const port = await freePort();
    // CAIRN_SANDBOX_JOBS and other CAIRN_* tuning pass through from our env.
    const env = serveEnv({ port, dataDir, databaseUrl });
    const child = startNode('cairn serve', ['bin/cairn.js', 'serve'], env);
    const baseUrl = `http://127.0.0.1:${port}`;
    let cairn: number[];
    let files: SandboxFile[];
    try {
      await waitForHealth(child, baseUrl);
      const agent = await connect(baseUrl, who.key);
      try {
        const runId = await startRun(baseUrl, who, agent);
        await call(agent, 'workspace.write', {
          run_id: runId,
          path: PROGRAM_PATH,
          content: PROGRAM,
          idempotency_key: key(),
        });
        files = await workspaceTree(agent, runId);
        await cairnExecs(agent, runId, WARMUP);
        cairn = await cairnExecs(agent, runId, CALLS);
      } finally {
        await agent.close().catch(() => {});
      }
    } finally {
      await stop(child);
    }

    // The baseline runs after the server has stopped, so the two never compete for CPU.
    const engine = await loadEngine();
    directExecs(engine, files, WARMUP);
    const direct = directExecs(engine, files, CALLS);

    console.log(`workspace: ${files.length} files (the ${CHALLENGE} world and ${PROGRAM_PATH})`);
    console.log(`cairn sandbox.exec over MCP, ${CALLS} sequential calls: ${describe(cairn)}`);
    console.log(`direct execDirect in this process, ${CALLS} sequential runs: ${describe(direct)}`);
    console.log(`cairn_ms_per_exec=${mean(cairn).toFixed(3)}`);
    console.log(`direct_ms_per_exec=${mean(direct).toFixed(3)}`);
    console.log(`sandbox_ratio=${(mean(cairn) / mean(direct)).toFixed(2)}`);
    return 0;
  } finally {
    removeTempDir(dataDir);
  }
}
