import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The repository root (not from children.ts: its exit handlers are no business of a test importing this). */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `npm run bench -- all` (issue 23 item 4): every benchmark in sequence, each in a child process
 * of its own (`node bin/bench.js <name>`, so one's leftovers never slow the next), its output
 * passed through as it comes; then bench/results.md: one table of every tracked figure with its
 * plain baseline from the same run, the ratio, the target and whether it is met, and the machine
 * it ran on. The figures are read from the `name=value` lines each benchmark prints (see FIGURES).
 * A benchmark that fails is reported as failed in the table, with the end of its error output
 * below it; one that skipped (PostgreSQL only, without DATABASE_URL) as skipped. Extra names
 * (`npm run bench -- all mcp campaign`) run only those. Exit code: 1 when any benchmark failed.
 */

const ALL_BENCHMARKS = [
  'mcp',
  'read',
  'campaign',
  'search',
  'rewards',
  'mail',
  'sandbox',
  'injection',
  'parse',
  'bodies',
] as const;

type Op = '>=' | '<=' | '<';

interface Figure {
  bench: (typeof ALL_BENCHMARKS)[number];
  /** What is measured, for the reader. */
  label: string;
  /** The `name=value` keys: Cairn's figure, the baseline's, and their ratio. */
  value?: string;
  baseline?: string;
  ratio?: string;
  /** The target, on the ratio (when there is one) or else on the value. */
  target?: { op: Op; bound: number; on: 'ratio' | 'value' };
  note?: string;
}

/** The tracked figures; targets are the issues' (23 for mcp, read, campaign; 16 for search; the injection set's). */
export const FIGURES: Figure[] = [
  {
    bench: 'mcp',
    label: 'identity_whoami calls/s, 64 clients (vs minimal SDK server)',
    value: 'cairn_rps',
    baseline: 'minimal_rps',
    ratio: 'mcp_ratio',
    target: { op: '>=', bound: 0.7, on: 'ratio' },
  },
  {
    bench: 'mcp',
    label: 'task_get calls/s, 64 clients (vs minimal server from memory)',
    value: 'cairn_task_get_rps',
    baseline: 'minimal_task_get_rps',
    ratio: 'task_get_ratio',
    target: { op: '>=', bound: 0.5, on: 'ratio' },
  },
  {
    bench: 'mcp',
    label: 'message_append calls/s, 64 clients (vs minimal server from memory)',
    value: 'cairn_message_append_rps',
    baseline: 'minimal_message_append_rps',
    ratio: 'message_append_ratio',
    target: { op: '>=', bound: 0.5, on: 'ratio' },
  },
  {
    bench: 'mcp',
    label: 'mcp_db_ratio (the lower of the two above)',
    ratio: 'mcp_db_ratio',
    target: { op: '>=', bound: 0.5, on: 'ratio' },
  },
  {
    bench: 'read',
    label: 'fetch_text ms per page, 16 concurrent (vs undici + linkedom + Readability)',
    value: 'cairn_ms_per_page',
    baseline: 'plain_ms_per_page',
    ratio: 'read_ratio',
    target: { op: '<=', bound: 1.5, on: 'ratio' },
  },
  {
    bench: 'campaign',
    label: 'contested task_claim claims/s, 100 clients (vs plain SQL floor)',
    value: 'claims_per_s',
    baseline: 'plain_claims_per_s',
    ratio: 'claim_ratio',
    target: { op: '>=', bound: 0.5, on: 'ratio' },
  },
  {
    bench: 'campaign',
    label: 'contested task_claim claims/s, absolute',
    value: 'claims_per_s',
    baseline: 'plain_claims_per_s',
    target: { op: '>=', bound: 1000, on: 'value' },
  },
  {
    bench: 'campaign',
    label: 'contested task_claim claims/s (vs identity_whoami through the same clients: the ceiling)',
    value: 'claims_per_s',
    baseline: 'whoami_ceiling_per_s',
    note: 'no call through this generator on this machine goes faster than the baseline',
  },
  {
    bench: 'campaign',
    label:
      'contested task_claim claims/s (vs the minimal SDK server answering from memory through the same clients: a server doing no work)',
    value: 'claims_per_s',
    baseline: 'mcp_ceiling_per_s',
    note: 'a claims/s target above this baseline and the one above is out of reach through this generator on this machine',
  },
  {
    bench: 'campaign',
    label: 'events_watch wake-up p99 ms, 500 waiters (vs plain node:http)',
    value: 'watch_p99_ms',
    baseline: 'plain_watch_p99_ms',
    ratio: 'watch_ratio',
    target: { op: '<=', bound: 1.3, on: 'ratio' },
  },
  {
    bench: 'campaign',
    label: 'events_watch wake-up p99 ms, absolute',
    value: 'watch_p99_ms',
    baseline: 'plain_watch_p99_ms',
    target: { op: '<', bound: 100, on: 'value' },
    note: 'needs the load generator on other cores (docs/performance.md, "Watch wake-up")',
  },
  {
    bench: 'search',
    label: 'evidence_search p95 ms, 100,000 texts (vs the same SQL by pg)',
    value: 'cairn_p95_ms',
    baseline: 'plain_p95_ms',
    ratio: 'search_ratio',
    target: { op: '<=', bound: 2, on: 'ratio' },
  },
  {
    bench: 'search',
    label: 'evidence_search p95 ms, absolute',
    value: 'cairn_p95_ms',
    baseline: 'plain_p95_ms',
    target: { op: '<', bound: 20, on: 'value' },
  },
  {
    bench: 'rewards',
    label: '1,000 contested approvals, wall seconds (vs plain SQL transactions)',
    value: 'cairn_seconds',
    baseline: 'plain_seconds',
    ratio: 'rewards_ratio',
  },
  {
    bench: 'mail',
    label: 'SMTP deliveries/s, 20 connections (vs smtp-server + mailparser)',
    value: 'cairn_deliveries_per_s',
    baseline: 'baseline_deliveries_per_s',
    ratio: 'mail_ratio',
  },
  {
    bench: 'sandbox',
    label: 'sandbox.exec ms per call over MCP (vs execDirect)',
    value: 'cairn_ms_per_exec',
    baseline: 'direct_ms_per_exec',
    ratio: 'sandbox_ratio',
  },
  {
    bench: 'injection',
    label: 'INSTRUCTION_LIKE_CONTENT recall (vs one plain regex)',
    value: 'injection_recall',
    baseline: 'plain_recall',
    target: { op: '>=', bound: 0.9, on: 'value' },
  },
  {
    bench: 'injection',
    label: 'INSTRUCTION_LIKE_CONTENT false-flag rate (vs one plain regex)',
    value: 'cairn_false_flag_rate',
    baseline: 'plain_false_flag_rate',
    target: { op: '<=', bound: 0.1, on: 'value' },
  },
  {
    bench: 'parse',
    label: 'parse ms of 10 KB of 2,000-deep nested HTML (vs an ordinary 10 KB article)',
    value: 'hostile_html_ms',
    baseline: 'article_ms',
    target: { op: '<', bound: 100, on: 'value' },
  },
  {
    bench: 'bodies',
    label: 'GET /health p99 ms during four 11.9 MB imports from one owner (vs /health idle)',
    value: 'health_p99_ms',
    baseline: 'idle_health_p99_ms',
    target: { op: '<', bound: 100, on: 'value' },
  },
];

/** Every `name=value` pair of lines made only of such pairs (a benchmark's figure lines). */
export function parseFigures(output: string): Map<string, string> {
  const figures = new Map<string, string>();
  const pair = /^[a-z][a-z0-9_]*=\S+$/;
  for (const line of output.split('\n')) {
    const tokens = line.trim().split(/\s+/);
    if (!tokens.every((t) => pair.test(t))) continue;
    for (const t of tokens) {
      const at = t.indexOf('=');
      figures.set(t.slice(0, at), t.slice(at + 1));
    }
  }
  return figures;
}

export interface Outcome {
  bench: string;
  code: number;
  seconds: number;
  figures: Map<string, string>;
  skipped: boolean;
  /** The end of its error output, shown when it failed. */
  errorTail: string;
}

/** Runs `node bin/bench.js <name>`, passing its output through and keeping it. */
function runOne(name: string): Promise<Outcome> {
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/bench.js'), name], {
    cwd: ROOT,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
    process.stdout.write(c);
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString('utf8')).slice(-4000);
    process.stderr.write(c);
  });
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      resolve({
        bench: name,
        code: code ?? (signal ? 128 : 1),
        seconds: (performance.now() - started) / 1000,
        figures: parseFigures(stdout),
        skipped: code === 0 && /^\w+: skipped\./m.test(stdout),
        errorTail: stderr.trim().split('\n').slice(-8).join('\n'),
      });
    });
  });
}

function met(op: Op, x: number, bound: number): boolean {
  if (op === '>=') return x >= bound;
  if (op === '<=') return x <= bound;
  return x < bound;
}

/** One table row: the figure's cells from its benchmark's outcome. */
function row(f: Figure, o: Outcome | undefined): string[] {
  const target = f.target
    ? `${f.target.on === 'ratio' ? 'ratio' : 'value'} ${f.target.op} ${f.target.bound}`
    : 'none set';
  const cells = (value: string, baseline: string, ratio: string, verdict: string) => [
    f.bench,
    f.label,
    value,
    baseline,
    ratio,
    f.note ? `${target}; ${f.note}` : target,
    verdict,
  ];
  if (!o) return cells('—', '—', '—', 'not run');
  if (o.code !== 0) return cells('—', '—', '—', `**FAILED** (exit ${o.code})`);
  if (o.skipped) return cells('—', '—', '—', 'skipped (PostgreSQL only)');
  const get = (k?: string) => (k ? o.figures.get(k) : undefined);
  const value = get(f.value);
  const baseline = get(f.baseline);
  const ratio = get(f.ratio);
  const show = (k: string | undefined, v: string | undefined) => (k ? (v ?? 'missing') : '—');
  let verdict = '—';
  if (f.target) {
    const judged = f.target.on === 'ratio' ? ratio : value;
    const x = Number(judged);
    verdict =
      judged === undefined || !Number.isFinite(x)
        ? '**missing**'
        : met(f.target.op, x, f.target.bound)
          ? 'pass'
          : '**fail**';
  }
  return cells(show(f.value, value), show(f.baseline, baseline), show(f.ratio, ratio), verdict);
}

async function databaseKind(): Promise<string> {
  const url = process.env.DATABASE_URL;
  if (!url) return 'embedded (PGlite); search and rewards need PostgreSQL and were skipped';
  const c = new pg.Client({ connectionString: url });
  try {
    await c.connect();
    const { rows } = await c.query<{ server_version: string }>('show server_version');
    return `PostgreSQL ${rows[0]?.server_version ?? '?'} (DATABASE_URL; mcp also measures identity_whoami on the embedded database)`;
  } catch (err) {
    return `PostgreSQL (DATABASE_URL; version unknown: ${(err as Error).message})`;
  } finally {
    await c.end().catch(() => {});
  }
}

export function renderResults(outcomes: Outcome[], machine: { database: string; load: string }): string {
  const seconds = Number(process.env.BENCH_SECONDS || 10);
  // Any BENCH_* setting changes what is measured (fewer waiters, fewer texts, shorter runs).
  const settings = Object.entries(process.env)
    .filter(([k]) => k.startsWith('BENCH_'))
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  const cells = FIGURES.map((f) =>
    row(
      f,
      outcomes.find((o) => o.bench === f.bench),
    ),
  );
  const table = [
    '| benchmark | figure | Cairn | baseline | ratio | target | result |',
    '|---|---|---|---|---|---|---|',
    ...cells.map((c) => `| ${c.map((x) => x.replaceAll('|', '\\|')).join(' | ')} |`),
  ].join('\n');
  const failed = outcomes.filter((o) => o.code !== 0);
  const failures = failed.length
    ? `\n## Failed\n\n${failed.map((o) => `- ${o.bench} (exit ${o.code}):\n\n\`\`\`\n${o.errorTail}\n\`\`\``).join('\n')}\n`
    : '';
  const ran = outcomes.map((o) => `${o.bench} ${o.seconds.toFixed(0)} s`).join(', ');
  return `# Benchmark results

Written by \`npm run bench -- all\` (bench/all.ts); each benchmark ran in this run, one after the
other, against its plain baseline measured in the same run. How each is measured: bench/*.ts and
docs/performance.md.

- Date: ${new Date().toISOString()}
- Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB; load average at the start ${machine.load}
- Node ${process.version} on ${os.platform()} ${os.arch()}
- Database: ${machine.database}
- Measured seconds per server (mcp, read): ${seconds}${seconds < 10 ? ' (a smoke run: not real figures)' : ''}
- Settings: ${settings.length > 0 ? `${settings.join(' ')} (not the defaults the labels describe)` : 'the defaults'}
- Ran: ${ran}

The load generator runs on the same cores as the server under test; a busy machine makes every
figure worse, the baseline's too, so the ratios are the fairer reading.

${table}
${failures}`;
}

export async function runAllBenchmarks(names: string[] = []): Promise<number> {
  const unknown = names.filter((n) => !(ALL_BENCHMARKS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    process.stderr.write(`Unknown benchmark(s) for all: ${unknown.join(', ')}\n`);
    return 2;
  }
  const which = names.length > 0 ? names : [...ALL_BENCHMARKS];
  const load = os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(', ');
  const database = await databaseKind();
  const outcomes: Outcome[] = [];
  for (const name of which) {
    process.stdout.write(`\n=== npm run bench -- ${name}\n`);
    const o = await runOne(name);
    outcomes.push(o);
    process.stdout.write(`=== ${name}: exit ${o.code} after ${o.seconds.toFixed(0)} s\n`);
  }
  const file = path.join(ROOT, 'bench', 'results.md');
  writeFileSync(file, renderResults(outcomes, { database, load }));
  const failed = outcomes.filter((o) => o.code !== 0).map((o) => o.bench);
  process.stdout.write(`\nwrote ${path.relative(ROOT, file)}\n`);
  process.stdout.write(`benchmarks_failed=${failed.length}\n`);
  return failed.length > 0 ? 1 : 0;
}
