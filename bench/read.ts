import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { request } from 'undici';
import { serveArticle } from './article.ts';
import {
  freePort,
  makeTempDir,
  removeTempDir,
  serveEnv,
  startNode,
  stop,
  waitForHealth,
} from './children.ts';
import { runLoad } from './load.ts';
import { provision } from './provision.ts';

/**
 * `npm run bench -- read`: fetch_text of a ~500 KB article page from a loopback site, 16 calls at
 * a time, against a plain undici GET + linkedom + Readability of the same page in the same run.
 * The last line, read_ratio=<cairn time per page / plain time per page>, is the figure to track
 * (target ≤ 1.5). Time per page is measured time divided by pages completed. A client refused
 * with DEGRADED_MODE waits its retry hint and calls again, as an agent is told to; those waits are
 * the client's time too, and the refusals are printed (refused_busy). Any other failure counts.
 */

const CONCURRENCY = 16;
const WARMUP_SECONDS = 2;

/** The baseline: what any script would do to read the page, with no safety, storage or pool. */
async function plainRead(url: string): Promise<number> {
  const res = await request(url);
  const html = await res.body.text();
  const { document } = parseHTML(html);
  const article = new Readability(document as unknown as Document).parse();
  const text = article?.textContent ?? '';
  if (text.length < 1000) throw new Error('plain read found no article text');
  return text.length;
}

async function measurePlain(url: string, seconds: number): Promise<{ pages: number; seconds: number }> {
  const from = performance.now() + WARMUP_SECONDS * 1000;
  const until = from + seconds * 1000;
  let pages = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await plainRead(url);
        const t = performance.now();
        if (t >= from && t <= until) pages++;
      }
    }),
  );
  return { pages, seconds };
}

export async function runReadBenchmark(): Promise<number> {
  const seconds = Number(process.env.BENCH_SECONDS || 10);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    process.stderr.write(`BENCH_SECONDS must be a positive number (got ${process.env.BENCH_SECONDS}).\n`);
    return 2;
  }
  // By default every read gets different bytes, so none is deduplicated (the honest case);
  // BENCH_READ_UNIQUE=0 re-serves identical bytes, as a re-read of an unchanged page would be.
  const unique = process.env.BENCH_READ_UNIQUE !== '0';
  const site = await serveArticle(unique);
  const dataDir = makeTempDir('cairn-bench-read-');
  try {
    console.log(
      `read benchmark: ${Math.round(site.bytes / 1024)} KB article${unique ? ' (different bytes on every read)' : ' (identical bytes on every read)'}, ${CONCURRENCY} concurrent, ${seconds} s each, cairn on ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded (PGlite)'}`,
    );
    const plain = await measurePlain(site.url, seconds);
    const plainMs = (plain.seconds * 1000) / plain.pages;
    console.log(`plain           pages=${plain.pages} ms_per_page=${plainMs.toFixed(1)}`);

    const port = await freePort();
    const env = serveEnv({
      port,
      dataDir,
      databaseUrl: process.env.DATABASE_URL || undefined,
      extra: {
        // The loopback site is private by nature: the operator's allow list is how a deployment reaches one.
        CAIRN_FETCH_ALLOW: `127.0.0.1:${site.port}`,
        CAIRN_FETCH_PORTS: String(site.port),
      },
    });
    const { key } = await provision(env, 'READ');
    const child = startNode('cairn serve', ['bin/cairn.js', 'serve'], env);
    let cairn: Awaited<ReturnType<typeof runLoad>>;
    try {
      await waitForHealth(child, `http://127.0.0.1:${port}`);
      cairn = await runLoad({
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { authorization: `Bearer ${key}` },
        tool: 'fetch_text',
        args: { url: site.url, declared_purpose: 'benchmark' },
        clients: CONCURRENCY,
        warmupSeconds: WARMUP_SECONDS,
        seconds,
        honourRetryAfter: true,
        check: (r) =>
          (r as { status?: string })?.status === 'COMPLETED'
            ? null
            : `unexpected: ${JSON.stringify(r).slice(0, 300)}`,
      });
    } finally {
      await stop(child);
    }
    const done = cairn.calls - cairn.errors;
    if (cairn.errors > 0)
      process.stderr.write(`cairn: ${cairn.errors} failed calls; the first: ${cairn.firstError}\n`);
    if (done === 0 || cairn.errors / cairn.calls > 0.01) {
      process.stderr.write('FAILED: more than 1% of fetch_text calls failed; the run is not valid.\n');
      return 1;
    }
    const cairnMs = (seconds * 1000) / done;
    console.log(
      `cairn           pages=${done} ms_per_page=${cairnMs.toFixed(1)} p50=${cairn.p50Ms.toFixed(0)}ms p99=${cairn.p99Ms.toFixed(0)}ms refused_busy=${cairn.deferred}`,
    );
    console.log(`cairn_ms_per_page=${cairnMs.toFixed(1)}`);
    console.log(`plain_ms_per_page=${plainMs.toFixed(1)}`);
    console.log(`read_ratio=${(cairnMs / plainMs).toFixed(2)}`);
    return 0;
  } finally {
    removeTempDir(dataDir);
    await site.close();
  }
}
