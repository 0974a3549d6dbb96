import { performance } from 'node:perf_hooks';
import { MAX_READABILITY_DEPTH, parseHtml } from '../src/parsing/html/html.ts';
import { longArticle } from './article.ts';

/**
 * `npm run bench -- parse` (issue 40): what hostile HTML costs the parser, against an ordinary
 * article of the same size as the plain baseline, in the same run. Three hostile shapes of about
 * 10 KB: one chain of 2,000 unclosed `<div>`s (it held a parser thread 30 s before the depth
 * bound), chains that stay just inside the bound side by side (the most Readability still
 * scores), and a 1 MB chain (flattened before parsing: time linear in bytes). Each is the
 * median of several parses after a warm-up. The last line, hostile_html_ms, is the 10 KB chain
 * (target under 100 ms).
 */

const encoder = new TextEncoder();

function medianMs(html: string, runs = 7): number {
  const bytes = encoder.encode(html);
  parseHtml(bytes, 'utf-8');
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    parseHtml(bytes, 'utf-8');
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const note = '<p>A short note about the cairn on the ridge, written by a walker.</p>';
const chain = (depth: number) => `${'<div>'.repeat(depth)}${note}${'</div>'.repeat(depth)}`;

function sized(unit: string, bytes: number): string {
  return `<html><body>${unit.repeat(Math.max(1, Math.round(bytes / unit.length)))}</body></html>`;
}

export async function runParseBenchmark(): Promise<number> {
  const article = longArticle(10_000);
  const deep = `<html><body>${'<div>'.repeat(2_000)}${note}</body></html>`;
  const atBound = sized(chain(MAX_READABILITY_DEPTH - 2), 10_000);
  const deep1m = `<html><body>${'<div>'.repeat(200_000)}${note}</body></html>`;
  const rows: Array<[string, string]> = [
    ['article', article],
    ['deep_chain', deep],
    ['chains_at_bound', atBound],
    ['deep_chain_1m', deep1m],
  ];
  const figures = new Map<string, number>();
  for (const [name, html] of rows) {
    const ms = medianMs(html);
    figures.set(name, ms);
    console.log(`${name.padEnd(16)} ${String(html.length).padStart(7)} bytes  ${ms.toFixed(1)} ms`);
  }
  const f = (name: string) => figures.get(name)!.toFixed(1);
  console.log(
    `article_ms=${f('article')} chains_at_bound_ms=${f('chains_at_bound')} hostile_1m_ms=${f('deep_chain_1m')}`,
  );
  console.log(`hostile_html_ms=${f('deep_chain')}`);
  return 0;
}
