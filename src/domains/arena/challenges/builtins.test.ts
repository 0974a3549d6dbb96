/**
 * The built-in exercises end to end at the verifier: each loads, a scripted correct solution
 * earns the full score, a wrong one strictly less, and the same input always scores the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sandbox } from '../../../sandbox/index.ts';
import { builtinChallenges } from './load.ts';
import type { LoadedChallenge, RunMessage, VerifyInput, WorldFile } from './types.ts';
import { verifyRun } from './verify.ts';

const sandbox = new Sandbox({ maxJobs: 2, maxWaiting: 8, maxTimeoutMs: 10_000, niceness: 0 });
afterAll(() => sandbox.close());

let builtins: Map<string, LoadedChallenge>;
beforeAll(async () => {
  builtins = new Map((await builtinChallenges()).map((loaded) => [loaded.challenge.id, loaded]));
});

function get(id: string): LoadedChallenge {
  const loaded = builtins.get(id);
  if (!loaded) throw new Error(`no built-in ${id}`);
  return loaded;
}

/** A run's input: artifacts as JSON, the world (with edits), and the thread. */
function run(
  loaded: LoadedChallenge,
  artifacts: Record<string, unknown>,
  edits: Record<string, string> = {},
  messages: RunMessage[] = [],
): VerifyInput {
  const workspace = new Map(loaded.worldFiles.map((file) => [file.path, file.content]));
  for (const [path, content] of Object.entries(edits)) workspace.set(path, content);
  const files: WorldFile[] = [...workspace].map(([path, content]) => ({ path, content }));
  const texts = Object.entries(artifacts).map(([name, value]) => [
    name,
    typeof value === 'string' ? value : JSON.stringify(value),
  ]);
  return { artifacts: new Map(texts as Array<[string, string]>), workspace: files, messages };
}

/** The source sentence an agent would copy, whitespace as in the file (line breaks included). */
function sentence(loaded: LoadedChallenge, sourceId: string, startsWith: string): string {
  const text = loaded.sources.get(sourceId)?.text ?? '';
  const start = text.indexOf(startsWith);
  return text.slice(start, text.indexOf('.', start) + 1);
}

describe('built-in challenges', () => {
  it('ships five valid challenges, every one marked synthetic', () => {
    expect([...builtins.keys()]).toEqual([
      'cite-quotation',
      'fix-failing-program',
      'pdf-table-to-json',
      'reconcile-sources',
      'team-handoff',
    ]);
    for (const loaded of builtins.values()) {
      expect(loaded.challenge.statement).toContain('Synthetic exercise');
      expect(loaded.challenge.time_limit_minutes).toBeLessThanOrEqual(60);
    }
    expect(get('team-handoff').challenge).toMatchObject({ mode: 'TEAM', team_size: 2 });
  });

  it('cite-quotation: the verbatim atlas sentence scores fully; paraphrase and decoys less', async () => {
    const loaded = get('cite-quotation');
    const quote = sentence(loaded, 'fenmark-atlas', 'The grey-crested tern was first recorded');
    expect(quote).toContain('\n');
    const right = await verifyRun(
      loaded,
      run(loaded, { 'citation.json': { quote, source_id: 'fenmark-atlas' } }),
      sandbox,
    );
    expect(right.score).toBe(right.max_score);
    expect(right.max_score).toBe(100);
    const paraphrase = await verifyRun(
      loaded,
      run(loaded, {
        'citation.json': {
          quote: 'Grey-crested terns first bred on Holm Skerry in 1962.',
          source_id: 'fenmark-atlas',
        },
      }),
      sandbox,
    );
    expect(paraphrase.score).toBe(40);
    const decoy = sentence(loaded, 'ferry-history', 'In 1962 the winter service');
    const wrong = await verifyRun(
      loaded,
      run(loaded, { 'citation.json': { quote: decoy, source_id: 'ferry-history' } }),
      sandbox,
    );
    expect(wrong.score).toBe(0);
  });

  it('reconcile-sources: 1871 with both sources weighed scores fully; the guidebook year less', async () => {
    const loaded = get('reconcile-sources');
    const finding = {
      claim: 'The Carrow Point lighthouse was first lit in 1871.',
      value: '1871',
      evidence:
        'src-a (the parish register) records the first lighting on 14 March 1871; src-b gives 1874, ' +
        'which src-c shows is the year the lens was replaced.',
    };
    const right = await verifyRun(loaded, run(loaded, { 'finding.json': finding }), sandbox);
    expect(right.score).toBe(right.max_score);
    const wrong = await verifyRun(
      loaded,
      run(loaded, {
        'finding.json': { ...finding, value: '1874', evidence: 'The guidebook src-b says so.' },
      }),
      sandbox,
    );
    expect(wrong.score).toBe(0);
    expect(wrong.rubric.map((line) => line.points)).toEqual([0, 0]);
  });

  it('fix-failing-program: fixing calc.js passes; the untouched world fails; editing the tests loses points', async () => {
    const loaded = get('fix-failing-program');
    const calc = loaded.worldFiles.find((file) => file.path === 'src/calc.js')?.content ?? '';
    const fixed = calc.replace('(values.length - 1)', 'values.length');
    expect(fixed).not.toBe(calc);
    const right = await verifyRun(loaded, run(loaded, {}, { 'src/calc.js': fixed }), sandbox);
    expect(right.rubric[0]?.note).toBe('test/run.js passes');
    expect(right.score).toBe(right.max_score);

    const untouched = await verifyRun(loaded, run(loaded, {}), sandbox);
    expect(untouched.rubric.map((line) => line.points)).toEqual([0, 30]);

    // The cheat: make the tests expect what the buggy code computes.
    const tests = loaded.worldFiles.find((file) => file.path === 'test/calc.test.js')?.content ?? '';
    const cheat = tests
      .replace("equal(mean([2, 4, 6, 8]), 5, 'mean')", "equal(mean([2, 4, 6, 8]), 20 / 3, 'mean')")
      .replace("equal(mean([7]), 7, 'single mean')", "equal(mean([7]), Infinity, 'single mean')");
    expect(cheat).not.toBe(tests);
    const cheated = await verifyRun(loaded, run(loaded, {}, { 'test/calc.test.js': cheat }), sandbox);
    expect(cheated.rubric.map((line) => line.points)).toEqual([70, 0]);
    expect(cheated.score).toBeLessThan(cheated.max_score);

    const deleted = run(loaded, {}, { 'src/calc.js': fixed });
    deleted.workspace = deleted.workspace.filter((file) => file.path !== 'test/assert.js');
    const gone = await verifyRun(loaded, deleted, sandbox);
    expect(gone.score).toBe(0);
  });

  it('pdf-table-to-json: all five rows score fully; a misread number and a surplus row cost their share', async () => {
    const loaded = get('pdf-table-to-json');
    const rows = [
      { reservoir: 'Eskholme', capacity_ml: 15900, level_pct: 72 },
      { reservoir: 'Ashby Fell', capacity_ml: 12400, level_pct: 87.5 },
      { reservoir: 'Brackenmoor', capacity_ml: 8350, level_pct: 64 },
      { reservoir: 'Cold Harbour ', capacity_ml: 21075, level_pct: 91.25 },
      { reservoir: 'Dunmere', capacity_ml: 4600, level_pct: 58.5 },
    ];
    const right = await verifyRun(loaded, run(loaded, { 'table.json': rows }), sandbox);
    expect(right.score).toBe(right.max_score);
    const misread = rows.map((row) => (row.reservoir === 'Dunmere' ? { ...row, capacity_ml: 4.6 } : row));
    const wrong = await verifyRun(loaded, run(loaded, { 'table.json': misread }), sandbox);
    expect(wrong.score).toBe(80);
    const withTotal = [...rows, { reservoir: 'Total', capacity_ml: 62325, level_pct: 0 }];
    const surplus = await verifyRun(loaded, run(loaded, { 'table.json': withTotal }), sandbox);
    expect(surplus.score).toBe(83);
  });

  it('team-handoff: a HANDOFF from A to B plus the code scores fully; no handoff or the wrong way less', async () => {
    const loaded = get('team-handoff');
    const answer = { 'answer.json': { station: 7, code: 'KV-4471' } };
    const handoff: RunMessage = { type: 'HANDOFF', from_role: 'A', to_role: 'B' };
    const right = await verifyRun(loaded, run(loaded, answer, {}, [handoff]), sandbox);
    expect(right.score).toBe(right.max_score);
    const none = await verifyRun(
      loaded,
      run(loaded, answer, {}, [{ type: 'NOTE', from_role: 'A', to_role: 'B' }]),
      sandbox,
    );
    expect(none.score).toBe(60);
    const backwards = await verifyRun(
      loaded,
      run(loaded, { 'answer.json': { station: 7, code: 'KV-3108' } }, {}, [
        { ...handoff, from_role: 'B', to_role: 'A' },
      ]),
      sandbox,
    );
    expect(backwards.score).toBe(0);
  });

  it('is deterministic: the same input twice gives identical result JSON', async () => {
    for (const loaded of builtins.values()) {
      const input = run(loaded, { 'table.json': '[1,', 'citation.json': { quote: 'x' } }, {}, []);
      const first = JSON.stringify(await verifyRun(loaded, input, sandbox));
      const second = JSON.stringify(await verifyRun(loaded, input, sandbox));
      expect(second).toBe(first);
    }
  });
});
