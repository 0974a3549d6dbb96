import { describe, expect, it } from 'vitest';
import type { ExecRequest, ExecResult } from '../../../sandbox/index.ts';
import { jsonEqual, resolvePointer } from './json-checks.ts';
import type { Challenge } from './schema.ts';
import type { LoadedChallenge, VerifyInput } from './types.ts';
import { verifyRun } from './verify.ts';

function challenge(rubric: Challenge['verifier']['rubric']): LoadedChallenge {
  return {
    challenge: {
      id: 'unit',
      version: 1,
      title: 'Unit',
      statement: 'Synthetic exercise.',
      mode: 'SOLO',
      time_limit_minutes: 5,
      allowed_tools: ['artifact_submit', 'result_verify'],
      world: { files: 'world', sources: [] },
      verifier: { rubric },
    },
    worldFiles: [{ path: 'main.js', content: 'sandbox.exit(0)' }],
    sources: new Map([
      [
        's',
        { title: 'S', url: 'lab://s', text: 'The answer\n  is   forty-two, said the source.', kind: 'TEXT' },
      ],
    ]),
    sha256: '0'.repeat(64),
  };
}

const input = (artifacts: Record<string, string>): VerifyInput => ({
  artifacts: new Map(Object.entries(artifacts)),
  workspace: [{ path: 'main.js', content: 'sandbox.exit(0)' }],
  messages: [],
});

const result = (over: Partial<ExecResult>): ExecResult => ({
  exitCode: 0,
  stdout: '',
  stderr: '',
  stdoutTruncated: false,
  stderrTruncated: false,
  timeMs: 1,
  memoryBytes: 0,
  changed: [],
  deleted: [],
  ...over,
});

const noSandbox = {
  exec: (_: ExecRequest): Promise<ExecResult> => Promise.reject(new Error('not used')),
};

describe('verifyRun on bad artifacts', () => {
  const quote = challenge([
    {
      id: 'q',
      points: 10,
      description: 'd',
      check: { type: 'quote_in_source', artifact: 'q.json', must_contain: 'FORTY-TWO' },
    },
  ]);

  it('gives 0 with a note for missing, malformed and mis-shaped artifacts, never throwing', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{}, "artifact 'q.json' was not submitted"],
      [{ 'q.json': '{nope' }, "artifact 'q.json' is not valid JSON"],
      [{ 'q.json': 'null' }, "artifact 'q.json' needs string fields quote and source_id"],
      [
        { 'q.json': '{"quote": 1, "source_id": "s"}' },
        "artifact 'q.json' needs string fields quote and source_id",
      ],
      [
        { 'q.json': '{"quote": "The answer is forty-two", "source_id": "zz"}' },
        "no simulated source has the id 'zz'",
      ],
      [
        { 'q.json': '{"quote": "forty-two", "source_id": "s"}' },
        'the quotation is shorter than 20 characters',
      ],
      [
        { 'q.json': '{"quote": "The answer is forty-three", "source_id": "s"}' },
        "the quotation is not verbatim in source 's'",
      ],
    ];
    for (const [artifacts, note] of cases) {
      const scored = await verifyRun(quote, input(artifacts), noSandbox);
      expect(scored).toEqual({
        score: 0,
        max_score: 10,
        rubric: [{ id: 'q', points: 0, max_points: 10, note }],
      });
    }
  });

  it('matches quotations after whitespace normalisation, must_contain case-insensitively', async () => {
    const scored = await verifyRun(
      quote,
      input({ 'q.json': JSON.stringify({ quote: 'The answer is\tforty-two, said', source_id: 's' }) }),
      noSandbox,
    );
    expect(scored.score).toBe(10);
  });
});

describe('JSON comparison', () => {
  it('ignores key order, keeps array order, trims strings, compares numbers exactly', () => {
    expect(jsonEqual({ a: 1, b: [' x ', 2] }, { b: ['x', 2], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: '1' })).toBe(false);
    expect(jsonEqual({ a: 0.1 + 0.2 }, { a: 0.3 })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(jsonEqual('Abc', 'aBC', true)).toBe(true);
  });

  it('resolves RFC 6901 pointers, escapes included, and nothing outside the document', () => {
    const doc = { 'a/b': { '~k': [10, 20] } };
    expect(resolvePointer(doc, '/a~1b/~0k/1')).toBe(20);
    expect(resolvePointer(doc, '')).toBe(doc);
    expect(resolvePointer(doc, '/a~1b/~0k/01')).toBeUndefined();
    expect(resolvePointer(doc, '/constructor')).toBeUndefined();
  });
});

describe('sandbox_passes', () => {
  const passes = challenge([
    {
      id: 'run',
      points: 5,
      description: 'd',
      check: { type: 'sandbox_passes', entry: 'main.js', args: ['x'], expect_stdout: 'ok' },
    },
  ]);

  it('passes the final workspace and args, and scores only exit 0 with the expected output', async () => {
    const seen: ExecRequest[] = [];
    const answer = (r: ExecResult) => ({
      exec: (request: ExecRequest) => {
        seen.push(request);
        return Promise.resolve(r);
      },
    });
    expect((await verifyRun(passes, input({}), answer(result({ stdout: 'ok\n' })))).score).toBe(5);
    expect(seen[0]).toMatchObject({ entry: 'main.js', args: ['x'], files: [{ path: 'main.js' }] });
    const failing = await verifyRun(passes, input({}), answer(result({ exitCode: 1 })));
    expect(failing.rubric[0]?.note).toBe('main.js exited with 1');
    const quiet = await verifyRun(passes, input({}), answer(result({ stdout: 'nope' })));
    expect(quiet.score).toBe(0);
    const slow = await verifyRun(passes, input({}), answer(result({ exitCode: 124, limit: 'TIME' })));
    expect(slow.rubric[0]?.note).toBe('main.js hit the sandbox TIME limit');
  });

  it('lets a sandbox that cannot run at all throw, so the caller retries instead of scoring 0', async () => {
    const busy = { exec: () => Promise.reject(new Error('DEGRADED_MODE')) };
    await expect(verifyRun(passes, input({}), busy)).rejects.toThrow('DEGRADED_MODE');
  });
});
