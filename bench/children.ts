import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Servers under test run as child processes, so the load generator never shares their event
 * loop: what we measure is the server's throughput, not a contest for one thread.
 */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** How much of a child's output we keep, to show when it fails. */
const TAIL_CHARS = 4000;

export interface Child {
  name: string;
  process: ChildProcess;
  /** The last few thousand characters the child wrote to stdout and stderr. */
  tail(): string;
}

/** Children still running and temp dirs still present, so an early exit leaves nothing behind. */
const running = new Set<ChildProcess>();
const tempDirs = new Set<string>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});
// Without these, Ctrl-C would end the process without 'exit' handlers, and skip the cleanup above.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

/** A fresh directory under the OS temp dir, removed at exit if not before. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/**
 * Starts `node <args>` in the repository root, keeping the tail of its output. With
 * BENCH_CPU_PROF=<dir> every child writes a V8 CPU profile there when it exits (for finding where
 * a figure's time goes; Node refuses --cpu-prof in NODE_OPTIONS).
 */
export function startNode(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const profile = process.env.BENCH_CPU_PROF;
  const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const child = spawn(process.execPath, [...flags, ...args], {
    cwd: ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  // Reading the pipes also keeps a chatty child from blocking on a full pipe.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-TAIL_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { name, process: child, tail: () => output.trim() };
}

/**
 * The minimal SDK server (bench/minimal-server.ts) in a process of its own: the baseline of the
 * mcp benchmark, and a server doing no work for the campaign benchmark's claim clients.
 */
export async function startMinimalServer(): Promise<{ child: Child; baseUrl: string }> {
  const port = await freePort();
  const child = startNode('minimal server', ['--import', 'tsx', 'bench/minimal-server.ts'], {
    ...process.env,
    PORT: String(port),
  });
  return { child, baseUrl: `http://127.0.0.1:${port}` };
}

/** Runs a short-lived `node <args>` to completion, feeding it stdin; resolves to its stdout. */
export async function runNode(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  stdin = '',
): Promise<string> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  child.stdin.end(stdin);
  // 'close', not 'exit': it waits until the output pipes are drained too.
  const [code] = (await once(child, 'close')) as [number | null];
  running.delete(child);
  if (code !== 0) throw new Error(`${name} exited with ${code}:\n${stderr.trim() || stdout.trim()}`);
  return stdout;
}

/** A TCP port free on loopback right now (the OS picks it; we release it for the child to take). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (!address || typeof address === 'string') throw new Error('could not find a free port');
  return address.port;
}

/** Resolves once GET <baseUrl>/health answers 200; fails if the child exits or time runs out. */
export async function waitForHealth(child: Child, baseUrl: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`${child.name} exited before it was ready:\n${child.tail()}`);
    }
    try {
      const response = await fetch(`${baseUrl}/health`);
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    // Cairn's /health is rate limited per address (300/min by default): poll gently.
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(
    `${child.name} did not answer ${baseUrl}/health within ${timeoutMs / 1000} s:\n${child.tail()}`,
  );
}

/** Stops a child: SIGTERM for a clean shutdown (PGlite flushes its files), SIGKILL if it lingers. */
export async function stop(child: Child, graceMs = 10_000): Promise<void> {
  const p = child.process;
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = once(p, 'exit');
  p.kill('SIGTERM');
  const timer = setTimeout(() => p.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * The environment of a `cairn serve` a benchmark starts: ours (CAIRN_* tuning passes through),
 * on loopback `port`, its data in `dataDir`, on `databaseUrl` or else the embedded database. The
 * per-identity rate limit is lifted (a benchmark measures throughput, not the limiter), and links
 * point at this server rather than a deployment's public address.
 */
export function serveEnv(opts: {
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  extra?: Record<string, string>;
}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(opts.port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    CAIRN_DATA_DIR: opts.dataDir,
    CAIRN_MCP_RATE_LIMIT: '10000000',
    ...opts.extra,
  };
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  else delete env.DATABASE_URL;
  delete env.CAIRN_BASE_URL;
  return env;
}
