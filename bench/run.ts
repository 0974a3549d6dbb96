import { runAllBenchmarks } from './all.ts';
import { runBodiesBenchmark } from './bodies.ts';
import { runCampaignBenchmark } from './campaign.ts';
import { runInjectionBenchmark } from './injection.ts';
import { runMailBenchmark } from './mail.ts';
import { runMcpBenchmark } from './mcp.ts';
import { runParseBenchmark } from './parse.ts';
import { runReadBenchmark } from './read.ts';
import { runRewardsBenchmark } from './rewards.ts';
import { runSandboxBenchmark } from './sandbox.ts';
import { runSearchBenchmark } from './search.ts';

/** `npm run bench -- <name>`: runs one benchmark by name; prints usage for a missing or unknown name. */

interface Benchmark {
  summary: string;
  /** Resolves to the process exit code. */
  run(): Promise<number>;
}

const BENCHMARKS: Record<string, Benchmark> = {
  all: {
    summary:
      'every benchmark below in sequence, then bench/results.md: each figure, its baseline, ratio, target (all <names> runs only those)',
    run: () => runAllBenchmarks(process.argv.slice(3)),
  },
  bodies: {
    summary:
      'GET /health p99 while one owner sends four 11.9 MB import bodies at once vs the same /health idle (issue 40)',
    run: runBodiesBenchmark,
  },
  campaign: {
    summary:
      '1,000 task_claim attempts on 100 tasks from 100 clients vs the plain SQL floor (PostgreSQL); 500 waiting events_watch woken by one message vs plain node:http',
    run: runCampaignBenchmark,
  },
  injection: {
    summary:
      'recall and false-flag rate of INSTRUCTION_LIKE_CONTENT on a labelled set, Cairn vs one plain regex',
    run: runInjectionBenchmark,
  },
  mail: {
    summary:
      '2,000 deliveries over SMTP from 20 connections, Cairn vs a bare smtp-server + mailparser; 200 waiting campaign_mail_wait woken by one mail',
    run: runMailBenchmark,
  },
  mcp: {
    summary:
      'tools/call identity_whoami, task_get and message_append from concurrent MCP clients, Cairn vs a minimal SDK server',
    run: runMcpBenchmark,
  },
  parse: {
    summary:
      'parse time of ~10 KB hostile HTML (2,000-deep nesting, chains at the depth bound) and 1 MB nesting vs an ordinary 10 KB article',
    run: runParseBenchmark,
  },
  read: {
    summary: 'fetch_text of a ~500 KB article, 16 concurrent, Cairn vs plain undici + linkedom + Readability',
    run: runReadBenchmark,
  },
  rewards: {
    summary:
      '1,000 approval decisions on 100 paid tasks from 50 clients over the owner API, Cairn vs the same postings as plain pg transactions',
    run: runRewardsBenchmark,
  },
  sandbox: {
    summary:
      '200 sequential sandbox.exec calls of a small program over MCP in an Arena run, Cairn vs execDirect in the same engine',
    run: runSandboxBenchmark,
  },
  search: {
    summary:
      'evidence_search over 100,000 ~2 KB texts in PostgreSQL, Cairn vs the same websearch_to_tsquery SQL by pg',
    run: runSearchBenchmark,
  },
};

const USAGE = `Usage: npm run bench -- <name>

Benchmarks:
${Object.entries(BENCHMARKS)
  .map(([name, b]) => `  ${name.padEnd(8)} ${b.summary}`)
  .join('\n')}

Environment:
  BENCH_SECONDS   measured seconds per server (default 10; below 10 is a smoke run only)
  BENCH_CLIENTS   concurrent MCP clients (mcp only; default 64)
  BENCH_READ_UNIQUE  read only: 0 re-serves identical bytes (deduplicated); default: different bytes on every read
  BENCH_WATCHERS  campaign only: waiting events_watch calls (default 500, the figure's)
  BENCH_WATCH_THREADS  campaign only: load-generator threads holding them (default 4)
  BENCH_CLAIM_CONNECTIONS  campaign only: connections of the plain claim floor (default: CAIRN_DB_POOL_SIZE or 10,
                  Cairn's pool); the floor makes and drops its own database cairn_bench_claims
  BENCH_SEARCH_DOCS  search only: evidence texts stored (default 100000, the figure's)
  DATABASE_URL    run Cairn on this PostgreSQL database instead of the embedded one
                  (search, rewards: the server it creates its own database cairn_bench_search or
                  cairn_bench_rewards on; required)`;

const name = process.argv[2];
const benchmark = name ? BENCHMARKS[name] : undefined;
if (!benchmark) {
  if (name) process.stderr.write(`Unknown benchmark "${name}".\n`);
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
try {
  process.exit(await benchmark.run());
} catch (err) {
  // Children and temp dirs are cleaned up by bench/children.ts on exit.
  process.stderr.write(`bench ${name} failed: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
}
