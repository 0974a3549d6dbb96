import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../../kernel/errors.ts';
import { loadChallengeDir } from './load.ts';
import type { ChallengeProblem, PackageFile } from './types.ts';
import { checkChallengePackage } from './validate.ts';

const encode = (text: string) => new TextEncoder().encode(text);

function manifest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'sample',
    version: 1,
    title: 'A sample',
    statement: 'Synthetic exercise.',
    mode: 'SOLO',
    time_limit_minutes: 10,
    allowed_tools: ['lab.fetch', 'sandbox.exec', 'artifact_submit', 'result_verify'],
    world: {
      files: 'world',
      sources: [{ id: 'src-a', title: 'A', url: 'lab://a', file: 'sources/a.txt', kind: 'TEXT' }],
    },
    verifier: {
      rubric: [
        {
          id: 'quote',
          points: 10,
          description: 'Quote it.',
          check: { type: 'quote_in_source', artifact: 'q.json', must_contain: 'fact' },
        },
        {
          id: 'runs',
          points: 5,
          description: 'It runs.',
          check: { type: 'sandbox_passes', entry: 'main.js' },
        },
      ],
    },
    ...overrides,
  };
}

function pkg(json: unknown, extra: Record<string, string> = {}): PackageFile[] {
  const files: Record<string, string> = {
    'challenge.json': typeof json === 'string' ? json : JSON.stringify(json),
    'world/main.js': "console.log('hi')",
    'sources/a.txt': 'A simulated source that states the fact plainly.',
    ...extra,
  };
  return Object.entries(files).map(([path, text]) => ({ path, bytes: encode(text) }));
}

function problemsOf(files: PackageFile[]): ChallengeProblem[] {
  const checked = checkChallengePackage(files);
  return checked.ok ? [] : checked.problems;
}

describe('checkChallengePackage', () => {
  it('accepts a good package and builds the world and the sources', () => {
    const checked = checkChallengePackage(pkg(manifest()));
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.loaded.worldFiles).toEqual([{ path: 'main.js', content: "console.log('hi')" }]);
    expect(checked.loaded.sources.get('src-a')).toMatchObject({ url: 'lab://a', kind: 'TEXT' });
    expect(checked.loaded.sha256).toMatch(/^[0-9a-f]{64}$/);
    const reversed = checkChallengePackage(pkg(manifest()).reverse());
    expect(reversed.ok && reversed.loaded.sha256).toBe(checked.loaded.sha256);
  });

  it('refuses JSON that does not parse', () => {
    expect(problemsOf(pkg('{"id": "sample",'))).toEqual([expect.objectContaining({ rule: 'INVALID_JSON' })]);
  });

  it('refuses an unknown check type', () => {
    const rubric = [{ id: 'x', points: 1, description: 'd', check: { type: 'trust_me', artifact: 'a' } }];
    const problems = problemsOf(pkg(manifest({ verifier: { rubric } })));
    expect(problems).toContainEqual(
      expect.objectContaining({ rule: 'SCHEMA', path: 'challenge.json#verifier.rubric.0.check.type' }),
    );
  });

  it('refuses path traversal, absolute paths and files outside the layout', () => {
    const problems = problemsOf(pkg(manifest(), { '../escape.txt': 'x', '/etc/x': 'y', 'notes.txt': 'z' }));
    expect(problems).toContainEqual(
      expect.objectContaining({ path: '../escape.txt', rule: 'PATH_TRAVERSAL' }),
    );
    expect(problems).toContainEqual(expect.objectContaining({ path: '/etc/x', rule: 'PATH_ABSOLUTE' }));
    expect(problems).toContainEqual(
      expect.objectContaining({ path: 'notes.txt', rule: 'PATH_OUTSIDE_LAYOUT' }),
    );
    const world = manifest().world as { sources: Array<Record<string, unknown>> };
    const sources = [{ ...world.sources[0], file: 'sources/../../secret' }];
    expect(problemsOf(pkg(manifest({ world: { files: 'world', sources } })))).toContainEqual(
      expect.objectContaining({ path: 'challenge.json#world.sources.0.file', rule: 'PATH_TRAVERSAL' }),
    );
  });

  it('refuses missing referenced files: a source, a sandbox entry, an empty world', () => {
    const files = pkg(manifest()).filter(
      (file) => file.path !== 'sources/a.txt' && file.path !== 'world/main.js',
    );
    const problems = problemsOf([...files, { path: 'world/other.js', bytes: encode('') }]);
    expect(problems).toContainEqual(
      expect.objectContaining({ path: 'challenge.json#world.sources.0.file', rule: 'MISSING_FILE' }),
    );
    expect(problems).toContainEqual(
      expect.objectContaining({ path: 'challenge.json#verifier.rubric.1.check', rule: 'MISSING_FILE' }),
    );
    const empty = problemsOf(pkg(manifest()).filter((file) => !file.path.startsWith('world/')));
    expect(empty).toContainEqual(
      expect.objectContaining({ path: 'challenge.json#world.files', rule: 'MISSING_FILE' }),
    );
  });

  it('refuses a time limit over 60 minutes', () => {
    expect(problemsOf(pkg(manifest({ time_limit_minutes: 61 })))).toContainEqual(
      expect.objectContaining({ path: 'challenge.json#time_limit_minutes', rule: 'SCHEMA' }),
    );
  });

  it('refuses TEAM without team_size and SOLO with one', () => {
    expect(problemsOf(pkg(manifest({ mode: 'TEAM' })))).toContainEqual(
      expect.objectContaining({ path: 'challenge.json#team_size', rule: 'TEAM_SIZE' }),
    );
    expect(problemsOf(pkg(manifest({ team_size: 2 })))).toContainEqual(
      expect.objectContaining({ rule: 'TEAM_SIZE' }),
    );
  });

  it('refuses a source url that is not lab://', () => {
    const sources = [
      { id: 'src-a', title: 'A', url: 'https://example.org/a', file: 'sources/a.txt', kind: 'TEXT' },
    ];
    expect(problemsOf(pkg(manifest({ world: { files: 'world', sources } })))).toContainEqual(
      expect.objectContaining({ path: 'challenge.json#world.sources.0.url', rule: 'SCHEMA' }),
    );
  });

  it('reports every problem at once, including joined-up rules', () => {
    const rubric = [
      { id: 'm', points: 1, description: 'd', check: { type: 'message_present', message_type: 'HANDOFF' } },
      { id: 'm', points: 1, description: 'd', check: { type: 'file_unchanged', paths: ['nope.js'] } },
    ];
    const problems = problemsOf(
      pkg(manifest({ allowed_tools: ['lab.fetch'], verifier: { rubric } }), { 'sources/stray.txt': 'x' }),
    );
    expect(problems.map((p) => p.rule).sort()).toEqual(
      [
        'DUPLICATE_ID',
        'MISSING_FILE',
        'TEAM_ONLY',
        'TOOL_REQUIRED',
        'TOOL_REQUIRED',
        'UNREFERENCED_FILE',
      ].sort(),
    );
  });

  it('refuses partial rows without an array and a quotation no source could satisfy', () => {
    const rubric = [
      {
        id: 'rows',
        points: 1,
        description: 'd',
        check: { type: 'json_equals', artifact: 't.json', expected: { a: 1 }, partial: 'rows' },
      },
      {
        id: 'q',
        points: 1,
        description: 'd',
        check: { type: 'quote_in_source', artifact: 'q.json', must_contain: 'not in any source' },
      },
    ];
    const problems = problemsOf(pkg(manifest({ verifier: { rubric } })));
    expect(problems.map((p) => p.rule)).toEqual(['PARTIAL_NEEDS_ROWS', 'UNSOLVABLE']);
  });

  it('refuses unknown fields, an oversized package and too many files', () => {
    expect(problemsOf(pkg(manifest({ extra: true })))).toContainEqual(
      expect.objectContaining({ rule: 'SCHEMA' }),
    );
    const big = pkg(manifest(), { 'world/big.txt': 'x'.repeat(2 * 1024 * 1024) });
    expect(problemsOf(big)).toContainEqual(expect.objectContaining({ rule: 'PACKAGE_TOO_LARGE' }));
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`world/f${i}.js`, '']));
    expect(problemsOf(pkg(manifest(), many))).toContainEqual(
      expect.objectContaining({ rule: 'TOO_MANY_FILES' }),
    );
  });

  it('refuses world and source files that are not UTF-8', () => {
    const files = [...pkg(manifest()), { path: 'world/bad.txt', bytes: new Uint8Array([0xff, 0xfe, 0x00]) }];
    expect(problemsOf(files)).toContainEqual(
      expect.objectContaining({ path: 'world/bad.txt', rule: 'NOT_UTF8' }),
    );
  });

  it('refuses the NUL character in world and source files (a workspace is stored as text)', () => {
    const files = pkg(manifest(), { 'world/nul.txt': 'a\u0000b' });
    expect(problemsOf(files)).toContainEqual(
      expect.objectContaining({ path: 'world/nul.txt', rule: 'NUL_CHARACTER' }),
    );
  });
});

describe('loadChallengeDir', () => {
  const roots: string[] = [];
  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  async function folder(files: Record<string, string>, id = 'sample', version = '1'): Promise<string> {
    const root = await mkdtemp(join(tmpdir(), 'challenge-'));
    roots.push(root);
    const dir = join(root, id, version);
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  }

  const good = () =>
    Object.fromEntries(pkg(manifest()).map((f) => [f.path, new TextDecoder().decode(f.bytes)]));

  it('loads a folder laid out as <id>/<version>/', async () => {
    const loaded = await loadChallengeDir(await folder(good()));
    expect(loaded.challenge.id).toBe('sample');
  });

  it('refuses a folder whose names disagree with challenge.json, with every problem listed', async () => {
    const dir = await folder({ ...good(), 'stray.md': 'x' }, 'other', '2');
    const error = await loadChallengeDir(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    const problems = (error as DomainError).details.problems as ChallengeProblem[];
    expect(problems.map((p) => p.rule).sort()).toEqual(['ID_MISMATCH', 'PATH_OUTSIDE_LAYOUT']);
  });

  it('refuses symbolic links and a missing folder', async () => {
    const dir = await folder(good());
    await symlink('/etc/hostname', join(dir, 'world', 'link.txt'));
    const error = (await loadChallengeDir(dir).catch((e: unknown) => e)) as DomainError;
    expect(error.details.problems).toEqual([
      expect.objectContaining({ path: 'world/link.txt', rule: 'SYMLINK' }),
    ]);
    const missing = (await loadChallengeDir(join(dir, 'nope')).catch((e: unknown) => e)) as DomainError;
    expect(missing.details.problems).toEqual([expect.objectContaining({ rule: 'NOT_A_FOLDER' })]);
  });
});
