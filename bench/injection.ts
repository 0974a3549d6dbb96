import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseBody } from '../src/parsing/dispatch.ts';
import { detectInstructions } from '../src/parsing/instructions/instructions.ts';
import { longArticle } from './article.ts';

/**
 * `npm run bench -- injection`: recall and false-flag rate of the instruction-like content flag on
 * the labelled set in test/fixtures/injection/set.json. Each snippet goes through the reader's
 * own parser (HTML through the sanitiser, text through the text path), and counts as flagged when
 * the result's flags hold INSTRUCTION_LIKE_CONTENT. The plain baseline, in the same run, is one
 * regular expression for "ignore (all) previous/prior instructions" over the raw snippet, as a
 * script with no parser would grep it. Rows per round show how the set was written: each round
 * was measured once before the rules saw it; docs/injection.md says which rounds were tuned on and
 * which is held out. The cost lines time detection alone (the prefilter and every pattern) on two
 * ~500 KB texts against the one-regex baseline.
 * The last line, injection_recall=<r>, is Cairn's recall over the whole set (target ≥ 0.9 with
 * false flags ≤ 0.1).
 */

export interface InjectionItem {
  id: string;
  category: string;
  label: 'injection' | 'benign';
  format: 'text' | 'html';
  content: string;
  note?: string;
  /** The round the snippet was written in: round1 … round6 (docs/injection.md). */
  split: string;
}

const SET_URL = new URL('../test/fixtures/injection/set.json', import.meta.url);

export function loadInjectionSet(): InjectionItem[] {
  return JSON.parse(readFileSync(SET_URL, 'utf8')) as InjectionItem[];
}

/** Whether Cairn's reader flags the snippet. */
export async function cairnFlags(item: InjectionItem): Promise<boolean> {
  const parsed = await parseBody({
    bytes: new TextEncoder().encode(item.content),
    contentType: item.format === 'html' ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8',
    url: 'https://example.test/page',
  });
  return parsed.flags.includes('INSTRUCTION_LIKE_CONTENT');
}

const PLAIN = /\bignore\s+(?:all\s+)?(?:previous|prior)\s+instructions\b/i;

/** The plain baseline: one regular expression over the raw snippet. */
export function plainFlags(item: InjectionItem): boolean {
  return PLAIN.test(item.content);
}

interface Score {
  positives: number;
  caught: number;
  negatives: number;
  falseFlags: number;
}

const empty = (): Score => ({ positives: 0, caught: 0, negatives: 0, falseFlags: 0 });

function add(score: Score, item: InjectionItem, flagged: boolean): void {
  if (item.label === 'injection') {
    score.positives++;
    if (flagged) score.caught++;
  } else {
    score.negatives++;
    if (flagged) score.falseFlags++;
  }
}

const ratio = (n: number, d: number): string => (d === 0 ? '   -' : (n / d).toFixed(2));

/**
 * Two ~500 KB texts for the cost of detection: the read benchmark's long article as plain text (few
 * candidate words), and prose made of the set's benign snippets repeated (every paragraph full of
 * "AI", "assistant", "must", quotes and chat markers: the detector's worst ordinary case).
 */
function costTexts(set: InjectionItem[]): Array<[string, string]> {
  const article = longArticle()
    .replace(/<[^>]+>/g, '\n')
    .replace(/\n{2,}/g, '\n\n');
  const benign = set
    .filter((item) => item.label === 'benign')
    .map((item) => item.content.replace(/<[^>]+>/g, ' '));
  const parts: string[] = [];
  for (let i = 0, size = 0; size < 500_000; i++) {
    const part = benign[i % benign.length]!;
    parts.push(part);
    size += part.length + 2;
  }
  return [
    ['long article', article],
    ['benign-set prose', parts.join('\n\n')],
  ];
}

/** Median milliseconds of `run` over a few repetitions, after one warm-up. */
function medianMs(run: () => unknown, repetitions = 7): number {
  run();
  const times: number[] = [];
  for (let i = 0; i < repetitions; i++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function printCost(set: InjectionItem[]): void {
  for (const [name, text] of costTexts(set)) {
    const cairnMs = medianMs(() => detectInstructions(text));
    const plainMs = medianMs(() => PLAIN.test(text));
    console.log(
      `detection cost, ${name} (${Math.round(text.length / 1000)} K chars): cairn ${cairnMs.toFixed(1)} ms, plain ${plainMs.toFixed(2)} ms`,
    );
  }
}

export async function runInjectionBenchmark(): Promise<number> {
  const set = loadInjectionSet();
  const cairn = new Map<string, Score>();
  const plain = new Map<string, Score>();
  const missed: string[] = [];
  const falselyFlagged: string[] = [];
  for (const item of set) {
    const flagged = await cairnFlags(item);
    for (const key of ['all', item.category, `(${item.split})`]) {
      if (!cairn.has(key)) cairn.set(key, empty());
      if (!plain.has(key)) plain.set(key, empty());
      add(cairn.get(key)!, item, flagged);
      add(plain.get(key)!, item, plainFlags(item));
    }
    if (item.label === 'injection' && !flagged) missed.push(item.id);
    if (item.label === 'benign' && flagged) falselyFlagged.push(item.id);
  }
  const all = cairn.get('all')!;
  console.log(
    `injection benchmark: ${set.length} snippets (${all.positives} injections, ${all.negatives} benign), test/fixtures/injection/set.json`,
  );
  console.log(
    `${'category'.padEnd(18)} ${'inj'.padStart(4)} ${'ben'.padStart(4)}  cairn recall/false  plain recall/false`,
  );
  const categories = [...cairn.keys()].filter((key) => key !== 'all' && !key.startsWith('(')).sort();
  const rounds = [...cairn.keys()].filter((key) => key.startsWith('(')).sort();
  for (const key of [...categories, ...rounds, 'all']) {
    const c = cairn.get(key)!;
    const p = plain.get(key)!;
    console.log(
      `${key.padEnd(18)} ${String(c.positives).padStart(4)} ${String(c.negatives).padStart(4)}  ` +
        `${ratio(c.caught, c.positives)} / ${ratio(c.falseFlags, c.negatives)}        ` +
        `${ratio(p.caught, p.positives)} / ${ratio(p.falseFlags, p.negatives)}`,
    );
  }
  console.log(`missed: ${missed.join(' ') || 'none'}`);
  console.log(`false flags: ${falselyFlagged.join(' ') || 'none'}`);
  const plainAll = plain.get('all')!;
  console.log(
    `plain_recall=${ratio(plainAll.caught, plainAll.positives)} plain_false_flag_rate=${ratio(plainAll.falseFlags, plainAll.negatives)}`,
  );
  printCost(set);
  console.log(`cairn_false_flag_rate=${ratio(all.falseFlags, all.negatives)}`);
  console.log(`injection_recall=${ratio(all.caught, all.positives)}`);
  return 0;
}
