import { beforeAll, describe, expect, it } from 'vitest';
import { builtinChallenges, checkChallengePackage, type LoadedChallenge } from '../challenges/index.ts';
import { type ComposedPart, type Composition, composePackage } from './compose.ts';

const encoder = new TextEncoder();
let builtins: Map<string, LoadedChallenge>;

beforeAll(async () => {
  builtins = new Map((await builtinChallenges()).map((c) => [c.challenge.id, c]));
});

const part = (id: string): ComposedPart => {
  const loaded = builtins.get(id);
  if (!loaded) throw new Error(`no built-in ${id}`);
  return { challengeId: id, version: loaded.challenge.version, loaded };
};

function composeAndCheck(
  parts: ComposedPart[],
  composition: Composition = 'SEQUENCE',
  timeLimitMinutes?: number,
) {
  const files = composePackage({
    challengeId: 'composed',
    title: 'Composed',
    composition,
    parts,
    timeLimitMinutes,
  });
  return checkChallengePackage(
    files.map((f) => ({ path: f.path, bytes: encoder.encode(f.content) })),
    { id: 'composed', version: 1 },
  );
}

describe('composePackage', () => {
  it('rewrites every name a check holds with its part prefix, and the package validates', () => {
    const checked = composeAndCheck([
      part('cite-quotation'),
      part('reconcile-sources'),
      part('fix-failing-program'),
    ]);
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    const c = checked.loaded.challenge;
    expect(c.mode).toBe('SOLO');
    // 20 + 20 + 30 minutes, capped at the package maximum.
    expect(c.time_limit_minutes).toBe(60);
    const checks = Object.fromEntries(c.verifier.rubric.map((line) => [line.id, line.check]));
    expect(checks['p1-verbatim-quote']).toMatchObject({ artifact: 'p1-citation.json' });
    expect(checks['p1-right-source']).toMatchObject({
      artifact: 'p1-citation.json',
      value: 'p1-fenmark-atlas',
    });
    expect(checks['p2-right-year']).toMatchObject({ value: '1871' });
    expect(checks['p2-both-sources-weighed']).toMatchObject({ tokens: ['p2-src-a', 'p2-src-b'] });
    expect(checks['p3-tests-pass']).toMatchObject({ entry: 'part-3/test/run.js' });
    expect(checks['p3-tests-untouched']).toMatchObject({
      paths: ['part-3/test/assert.js', 'part-3/test/calc.test.js', 'part-3/test/run.js'],
    });
    expect([...checked.loaded.sources.keys()]).toContain('p2-src-c');
    expect(checked.loaded.sources.get('p1-fenmark-atlas')?.url).toBe(
      `lab://part-1/${builtins.get('cite-quotation')?.challenge.world.sources[0]?.url.slice('lab://'.length)}`,
    );
    expect(checked.loaded.worldFiles.map((f) => f.path)).toContain('part-3/src/calc.js');
    expect(c.allowed_tools).toEqual(expect.arrayContaining(['sandbox.exec', 'lab.fetch', 'result_verify']));
    expect(c.allowed_tools).not.toContain('message_append');
  });

  it('makes a TEAM_SPLIT a team of one member per part, with the thread allowed', () => {
    const checked = composeAndCheck([part('cite-quotation'), part('pdf-table-to-json')], 'TEAM_SPLIT', 15);
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    const c = checked.loaded.challenge;
    expect(c).toMatchObject({ mode: 'TEAM', team_size: 2, time_limit_minutes: 15 });
    expect(c.allowed_tools).toContain('message_append');
    expect(c.statement).toContain('Role A works part 1; Role B works part 2');
  });

  it('reports what the validator refuses in the composition (a prefixed source id past 64 characters)', () => {
    const base = part('cite-quotation');
    const long = 'a'.repeat(63);
    const [first, ...rest] = base.loaded.challenge.world.sources;
    if (!first) throw new Error('cite-quotation has sources');
    const text = base.loaded.sources.get(first.id);
    if (!text) throw new Error('source text');
    const renamed: LoadedChallenge = {
      ...base.loaded,
      challenge: {
        ...base.loaded.challenge,
        world: { ...base.loaded.challenge.world, sources: [{ ...first, id: long }, ...rest] },
      },
      sources: new Map([[long, text], ...[...base.loaded.sources].filter(([id]) => id !== first.id)]),
    };
    const checked = composeAndCheck([{ ...base, loaded: renamed }, part('reconcile-sources')]);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.problems).toContainEqual(
      expect.objectContaining({ path: 'challenge.json#world.sources.0.id', rule: 'SCHEMA' }),
    );
  });
});
