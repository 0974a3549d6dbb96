import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { TABLES } from '../src/domains/catalog.ts';
import { IdentityService } from '../src/domains/identity/index.ts';
import { systemClock } from '../src/kernel/clock.ts';
import { openDatabase } from '../src/storage/database.ts';
import { percentile } from './campaign-setup.ts';
import {
  freePort,
  makeTempDir,
  ROOT,
  removeTempDir,
  serveEnv,
  startNode,
  stop,
  waitForHealth,
} from './children.ts';

/**
 * `npm run bench -- bodies` (issue 40 item 3): how long `GET /health` takes to answer while one
 * owner sends four 8.9 MB imports at once (11.9 MB JSON bodies; two are read, two are told the
 * owner's large uploads are in flight), against the same `/health` of the same idle server in
 * the same run: the plain baseline. One `cairn serve`, on DATABASE_URL or the embedded database;
 * the uploads come from one process, `/health` is timed every 10 ms from another
 * (test/support/large-upload-client.mjs), so neither loads the server's event loop. Three rounds
 * (BENCH_ROUNDS). Last line: health_p99_ms=<p99 under load> (target under 100 ms, on PostgreSQL:
 * the embedded database writes a 9 MB row in the server's own thread, docs/performance.md).
 */

const CLIENT = path.join(ROOT, 'test/support/large-upload-client.mjs');
const UPLOADS = 4;
const FILE_MB = 8.9;

interface Report {
  body_bytes: number;
  seconds: number;
  uploads: Array<{ status: number; code: string | null }>;
  latencies: number[];
}

function runClient(baseUrl: string, token: string, count: number): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT, baseUrl, token, String(count), String(FILE_MB)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Report) : reject(new Error(`upload client exited ${code}`)),
    );
  });
}

/** Times /health alone for `ms`, as the sampler does under load. */
async function idleHealth(baseUrl: string, ms: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const started = performance.now();
    const res = await fetch(`${baseUrl}/health`);
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return latencies;
}

export async function runBodiesBenchmark(): Promise<number> {
  const databaseUrl = process.env.DATABASE_URL;
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
  const dataDir = makeTempDir('cairn-bench-bodies-');
  // The owner exists before the server opens the database (the embedded one is single-process).
  const database = await openDatabase(
    databaseUrl ? { tables: TABLES, databaseUrl } : { tables: TABLES, dataDir: path.join(dataDir, 'pg') },
  );
  let token: string;
  try {
    const identity = new IdentityService(database, systemClock, 'http://127.0.0.1/mcp');
    const email = `bench-bodies-${randomUUID()}@example.org`;
    await identity.addOwner(email, randomUUID());
    token = (await identity.addOwnerToken(email, 'bench bodies', 1)).token;
  } finally {
    await database.close();
  }
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // /health is rate limited per address (300 a minute by default); the sampler asks ~60 a second.
  const env = serveEnv({ port, dataDir, databaseUrl, extra: { CAIRN_PUBLIC_RATE_LIMIT: '100000' } });
  const server = startNode('cairn serve', ['bin/cairn.js', 'serve'], env);
  try {
    await waitForHealth(server, baseUrl);
    // A warm-up upload: the first loads the parser threads' modules.
    await runClient(baseUrl, token, 1);
    const idle: number[] = [];
    const loaded: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      idle.push(...(await idleHealth(baseUrl, 2_000)));
      const report = await runClient(baseUrl, token, UPLOADS);
      const stored = report.uploads.filter((u) => u.status === 201).length;
      const held = report.uploads.filter((u) => u.code === 'RATE_LIMITED').length;
      if (stored + held !== UPLOADS || stored === 0) {
        throw new Error(`round ${round}: unexpected answers ${JSON.stringify(report.uploads)}`);
      }
      loaded.push(...report.latencies);
      console.log(
        `round ${round}: ${UPLOADS} bodies of ${(report.body_bytes / 1e6).toFixed(1)} MB, ${stored} stored, ${held} held (LARGE_BODIES_IN_FLIGHT), ${report.seconds.toFixed(1)} s; /health p99 ${percentile(report.latencies, 99).toFixed(1)} ms, max ${Math.max(...report.latencies).toFixed(1)} ms`,
      );
    }
    const fmt = (v: number) => v.toFixed(1);
    console.log(
      `database=${databaseUrl ? 'postgresql' : 'pglite'} samples_idle=${idle.length} samples_loaded=${loaded.length}`,
    );
    console.log(
      `idle_health_p99_ms=${fmt(percentile(idle, 99))} health_p50_ms=${fmt(percentile(loaded, 50))} health_max_ms=${fmt(Math.max(...loaded))}`,
    );
    console.log(`health_p99_ms=${fmt(percentile(loaded, 99))}`);
    return 0;
  } finally {
    await stop(server);
    removeTempDir(dataDir);
  }
}
