import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { campaignsArea } from '../src/domains/campaigns/index.ts';
import { TABLES } from '../src/domains/catalog.ts';
import { findAgent } from '../src/domains/identity/agent-repo.ts';
import { IdentityService } from '../src/domains/identity/index.ts';
import type { Caller } from '../src/domains/identity/types.ts';
import { EvidenceSearch } from '../src/domains/reading/index.ts';
import { systemClock } from '../src/kernel/clock.ts';
import { openDatabase } from '../src/storage/database.ts';
import { percentile } from './campaign-setup.ts';
import { seeded } from './seeded.ts';

/**
 * `npm run bench -- search` (issue 16 item 10): evidence_search over 100,000 generated evidence
 * texts of ~2 KB in PostgreSQL, through the service the tool calls (visibility, cursor, messages,
 * snippets), against the same websearch_to_tsquery SQL (match, rank, top 20, snippets) sent
 * directly with `pg`. PostgreSQL only: the bench makes its own database, cairn_bench_search.
 * Last line: search_ratio=<Cairn p95 / plain SQL p95>. Target: ≤ 2, and Cairn's p95 < 20 ms.
 */

const DB_NAME = 'cairn_bench_search';
const DOCS = Number(process.env.BENCH_SEARCH_DOCS ?? 100_000);
const QUERIES = Number(process.env.BENCH_SEARCH_QUERIES ?? 200);
const MESSAGES = 2_000;
const VOCABULARY = 6_000;
const WORDS_PER_DOC = 260;
const BATCH = 500;
const LIMIT = 20;

export async function runSearchBenchmark(): Promise<number> {
  const serverUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    process.stdout.write(
      'search: skipped. This benchmark runs on PostgreSQL only: set DATABASE_URL (or TEST_DATABASE_URL) to a server it may create the database cairn_bench_search on.\n',
    );
    return 0;
  }
  const url = await freshDatabase(serverUrl);
  const database = await openDatabase({ tables: TABLES, databaseUrl: url, poolSize: 4 });
  const plain = new pg.Client({ connectionString: url });
  await plain.connect();
  try {
    const words = vocabulary();
    const started = performance.now();
    const { reader, peer, campaignId } = await identities(database, url);
    await fill(url, words, reader, peer, campaignId);
    process.stdout.write(
      `search: ${DOCS.toLocaleString('en')} evidence texts and ${MESSAGES.toLocaleString('en')} messages stored in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );

    const agent = await findAgent(database.db, reader);
    if (!agent) throw new Error('bench agent not found');
    const caller: Caller = { agent, credential: { kind: 'project_key', id: 'bench' }, standing: 'MEMBER' };
    const search = new EvidenceSearch(database, randomUUID(), campaignsArea.extensions.readCoverage);
    const cairn = (q: string) =>
      search.search(caller, { q, campaignId: null, kinds: ['evidence', 'finding', 'message'], limit: LIMIT });
    const direct = (q: string) => plain.query(PLAIN_SQL, [q, LIMIT]);

    const queries = queryMix(words, QUERIES + 20);
    const cairnMs: number[] = [];
    const plainMs: number[] = [];
    const byShape = new Map<string, { cairn: number[]; plain: number[] }>(
      SHAPES.map((shape) => [shape, { cairn: [], plain: [] }]),
    );
    let cairnHits = 0;
    let plainHits = 0;
    for (const [i, q] of queries.entries()) {
      // Interleaved, and which goes first alternates, so neither always meets pages the other
      // has just read into the cache; the first 20 of each only warm up.
      let cairnTook = 0;
      let plainTook = 0;
      let a: Awaited<ReturnType<typeof cairn>> | null = null;
      let b: Awaited<ReturnType<typeof direct>> | null = null;
      for (const which of i % 2 === 0 ? ['cairn', 'plain'] : ['plain', 'cairn']) {
        const t0 = performance.now();
        if (which === 'cairn') {
          a = await cairn(q);
          cairnTook = performance.now() - t0;
        } else {
          b = await direct(q);
          plainTook = performance.now() - t0;
        }
      }
      if (i < 20) continue;
      cairnMs.push(cairnTook);
      plainMs.push(plainTook);
      const shape = byShape.get(SHAPES[i % 3] as string);
      shape?.cairn.push(cairnTook);
      shape?.plain.push(plainTook);
      cairnHits += a?.results.length ?? 0;
      plainHits += b?.rows.length ?? 0;
    }
    const line = (name: string, ms: number[], hits: number) =>
      `${name.padEnd(10)} p50 ${percentile(ms, 50).toFixed(2)} ms  p95 ${percentile(ms, 95).toFixed(2)} ms  p99 ${percentile(ms, 99).toFixed(2)} ms  (${(hits / ms.length).toFixed(1)} results a query)\n`;
    process.stdout.write(
      `search: ${cairnMs.length} queries each, one at a time, top ${LIMIT} with snippets\n`,
    );
    process.stdout.write(line('cairn', cairnMs, cairnHits));
    process.stdout.write(line('plain SQL', plainMs, plainHits));
    for (const [shape, ms] of byShape) {
      process.stdout.write(
        `  ${shape.padEnd(8)} p95 cairn ${percentile(ms.cairn, 95).toFixed(2)} ms, plain ${percentile(ms.plain, 95).toFixed(2)} ms\n`,
      );
    }
    const ratio = percentile(cairnMs, 95) / percentile(plainMs, 95);
    process.stdout.write(`cairn_p95_ms=${percentile(cairnMs, 95).toFixed(2)}\n`);
    process.stdout.write(`plain_p95_ms=${percentile(plainMs, 95).toFixed(2)}\n`);
    process.stdout.write(`search_ratio=${ratio.toFixed(2)}\n`);
    return 0;
  } finally {
    await plain.end();
    await database.close();
  }
}

/** What evidence_search does for the evidence, without Cairn: match, rank, top N, snippets. */
const PLAIN_SQL = `with hits as (
    select e.id, ts_rank_cd(e.search_vector, q, 1) as rank
    from evidence e, websearch_to_tsquery('english'::regconfig, $1) q
    where e.search_vector @@ q
    order by rank desc, e.id collate "C" limit $2 + 1)
  select h.id, h.rank, left(ts_headline('english'::regconfig, left(e.text, 20000),
      websearch_to_tsquery('english'::regconfig, $1),
      'StartSel=«, StopSel=», MaxWords=30, MinWords=12, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … "'), 500) as snippet
  from hits h join evidence e on e.id = h.id
  order by h.rank desc, h.id collate "C" limit $2`;

/** Drops and creates the bench's own database on the server of `serverUrl`; returns its URL. */
async function freshDatabase(serverUrl: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${DB_NAME} with (force)`);
    await admin.query(`create database ${DB_NAME}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${DB_NAME}`;
  return url.toString();
}

/** The reader (whose searches are measured), a peer, and a SHARED campaign both are active in. */
async function identities(database: Awaited<ReturnType<typeof openDatabase>>, url: string) {
  const identity = new IdentityService(database, systemClock, 'http://127.0.0.1/mcp');
  const email = `bench-${randomUUID()}@example.org`;
  const { owner_id } = await identity.addOwner(email, randomUUID());
  const add = async (name: string) => {
    const { agent_id } = await identity.addAgent({
      ownerEmail: email,
      displayName: name,
      runtime: 'bench',
      kind: 'OWNER_CREATED',
    });
    await identity.setMode(agent_id, 'READ');
    return agent_id;
  };
  const reader = await add('bench reader');
  const peer = await add('bench peer');
  const campaignId = 'cmp_benchsearch';
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `insert into campaigns (id, owner_id, created_by, title, objective, budget, scopes, allow_agent_publish,
         visibility, participation, status, created_at)
       values ($1, $2, $3, 'Search bench', 'Measure evidence_search.', null, '[]', false, 'SHARED', 'OPEN', 'ACTIVE', now())`,
      [campaignId, owner_id, reader],
    );
    await client.query(
      `insert into campaign_members (campaign_id, agent_id, role, status, invited_by, created_at, joined_at, updated_at)
       select $1, a, r, 'ACTIVE', null, now(), now(), now()
       from unnest($2::text[], $3::text[]) as m(a, r)`,
      [campaignId, [reader, peer], ['COORDINATOR', 'PARTICIPANT']],
    );
  } finally {
    await client.end();
  }
  return { reader, peer, campaignId };
}

/**
 * Half the texts are the reader's own reads, half the peer's reads shared into the campaign (so
 * both sides of the evidence predicate are exercised), and messages in the campaign. Two
 * connections insert batches of 500 rows; the tsvectors are computed by PostgreSQL on insert.
 */
async function fill(url: string, words: string[], reader: string, peer: string, campaignId: string) {
  const random = seeded(16);
  const zipf = zipfSampler(words.length, random);
  const doc = (n: number) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(`${words[zipf()]}${i % 14 === 13 ? '.' : ''}`);
    return out.join(' ');
  };
  const workers = [0, 1].map(async (worker) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      if (worker === 0) {
        await client.query(
          `insert into evidence_blobs (hash, bytes, size, created_at) values ('sha256:bench', '\\x00', 1, now())`,
        );
      } else {
        await new Promise((r) => setTimeout(r, 200));
      }
      for (let start = worker * BATCH; start < DOCS; start += 2 * BATCH) {
        const ids: string[] = [];
        const agents: string[] = [];
        const titles: string[] = [];
        const texts: string[] = [];
        for (let i = start; i < Math.min(DOCS, start + BATCH); i++) {
          ids.push(`evd_bench${String(i).padStart(7, '0')}`);
          agents.push(i % 2 === 0 ? reader : peer);
          titles.push(doc(6));
          texts.push(doc(WORDS_PER_DOC));
        }
        await client.query(
          `insert into evidence (id, agent_id, provenance, trust_label, requested_url, canonical_url, retrieved_at,
             http_status, body_hash, content_type, kind, title, text, pages, transformations, flags,
             instruction_spans, hops, declared_purpose, created_at)
           select id, agent, 'SERVER_FETCH', 'UNTRUSTED_EXTERNAL_CONTENT', 'https://bench.example/' || id,
             'https://bench.example/' || id, now(), 200, 'sha256:bench', 'text/html', 'html', title, body,
             '[]', '[]', '[]', '[]', '[]', 'bench', now()
           from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as d(id, agent, title, body)`,
          [ids, agents, titles, texts],
        );
      }
    } finally {
      await client.end();
    }
  });
  await Promise.all(workers);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `insert into campaign_evidence (campaign_id, evidence_id, agent_id, author_role, task_id, note, created_at)
       select $1, id, agent_id, 'PARTICIPANT', null, null, now() from evidence where agent_id = $2`,
      [campaignId, peer],
    );
    const contents = Array.from({ length: MESSAGES }, () => doc(40));
    await client.query(
      `insert into campaign_messages (id, campaign_id, agent_id, owner_id, author_role, type, label, content,
         addressed_to, reply_to, task_id, data, created_at)
       select 'msg_bench' || lpad(n::text, 6, '0'), $1, $2, null, 'PARTICIPANT', 'NOTE', null, c, null, null, null, '{}', now()
       from unnest($3::text[]) with ordinality as m(c, n)`,
      [campaignId, peer, contents],
    );
    await client.query('analyze');
  } finally {
    await client.end();
  }
}

/**
 * 200 queries as people type them: a third one less common word (a few hundred to a couple of
 * thousand texts), a third two words that must both occur, a third a quoted two-word phrase.
 * The 150 most frequent generated words stand for English stop words, which the english
 * configuration drops, so they are not queried.
 */
const SHAPES = ['word', 'two words', 'phrase'];

function queryMix(words: string[], n: number): string[] {
  const random = seeded(99);
  const pick = (from: number, to: number) => words[from + Math.floor(random() * (to - from))] as string;
  return Array.from({ length: n }, (_, i) => {
    switch (i % 3) {
      case 0:
        return pick(300, VOCABULARY);
      case 1:
        return `${pick(150, 3_000)} ${pick(150, 3_000)}`;
      default:
        return `"${pick(150, 1_000)} ${pick(150, 1_000)}"`;
    }
  });
}

/** Made-up words of two to four syllables: no stop words, each its own stem. */
function vocabulary(): string[] {
  const random = seeded(7);
  const onsets = [
    'b',
    'd',
    'f',
    'g',
    'k',
    'l',
    'm',
    'n',
    'p',
    'r',
    's',
    't',
    'v',
    'z',
    'br',
    'dr',
    'kl',
    'st',
  ];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];
  const seen = new Set<string>();
  while (seen.size < VOCABULARY) {
    const syllables = 2 + Math.floor(random() * 3);
    let w = '';
    for (let s = 0; s < syllables; s++) {
      w += onsets[Math.floor(random() * onsets.length)];
      w += vowels[Math.floor(random() * vowels.length)];
    }
    seen.add(`${w}n`);
  }
  return [...seen];
}

/** Word ranks drawn with probability ∝ 1/rank (Zipf, s = 1), as in natural text. */
function zipfSampler(n: number, random: () => number): () => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    total += 1 / (i + 1);
    cumulative[i] = total;
  }
  return () => {
    const x = random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
