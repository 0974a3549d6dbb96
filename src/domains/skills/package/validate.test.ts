import { describe, expect, it } from 'vitest';
import { invalidFixtures, validFixtures } from '../../../../test/fixtures/skills/fixtures.ts';
import { PACKAGE_LIMITS, type PackageFile, readMeta, validatePackage } from './index.ts';

const text = (path: string, content: string): PackageFile => ({
  path,
  bytes: new TextEncoder().encode(content),
});
const skillMd = (name: string) =>
  text('SKILL.md', `---\nname: ${name}\ndescription: A test skill.\n---\n# Body\n`);
const rulesOf = (name: string, files: PackageFile[]) =>
  validatePackage(name, files).map((p) => [p.path, p.rule]);

describe('validatePackage on fixture folders', () => {
  const valid = validFixtures();
  it('has at least three valid fixtures', () => expect(valid.length).toBeGreaterThanOrEqual(3));
  for (const fixture of valid) {
    it(`accepts valid/${fixture.name}`, () =>
      expect(validatePackage(fixture.name, fixture.files)).toEqual([]));
  }
  for (const fixture of invalidFixtures()) {
    it(`reports exactly the expected problems for invalid/${fixture.caseName}`, () => {
      const problems = validatePackage(fixture.packageName, fixture.files);
      expect(problems.map(({ path, rule }) => ({ path, rule }))).toEqual(fixture.expected);
      for (const p of problems) expect(p.message.length).toBeGreaterThan(10);
    });
  }
});

describe('validatePackage on built file lists', () => {
  it('reports path problems for every bad path', () => {
    const files = [skillMd('s'), text('../evil', 'x'), text('/etc/x', 'x'), text('scripts\\a', 'x')];
    expect(rulesOf('s', files)).toEqual([
      ['../evil', 'PATH_TRAVERSAL'],
      ['/etc/x', 'PATH_ABSOLUTE'],
      ['scripts\\a', 'PATH_BACKSLASH'],
    ]);
  });

  it('reports a duplicated path once', () => {
    const files = [
      skillMd('s'),
      text('scripts/a.sh', 'x'),
      text('scripts/a.sh', 'y'),
      text('scripts/a.sh', 'z'),
    ];
    expect(rulesOf('s', files)).toEqual([['scripts/a.sh', 'PATH_DUPLICATE']]);
  });

  it('refuses a file over the size limit', () => {
    const big = { path: 'assets/big.bin', bytes: new Uint8Array(PACKAGE_LIMITS.fileBytes + 1) };
    expect(rulesOf('s', [skillMd('s'), big])).toEqual([['assets/big.bin', 'FILE_TOO_LARGE']]);
    big.bytes = big.bytes.subarray(1);
    expect(rulesOf('s', [skillMd('s'), big])).toEqual([]);
  });

  it('refuses a package over the total size limit', () => {
    const files = [skillMd('s')];
    for (let i = 0; i < 8; i++)
      files.push({ path: `assets/${i}.bin`, bytes: new Uint8Array(PACKAGE_LIMITS.fileBytes) });
    expect(rulesOf('s', files)).toEqual([['', 'PACKAGE_TOO_LARGE']]);
  });

  it('refuses more files than the limit', () => {
    const files = [skillMd('s')];
    for (let i = 0; i < PACKAGE_LIMITS.files - 1; i++) files.push(text(`assets/${i}.txt`, ''));
    expect(rulesOf('s', files)).toEqual([]);
    files.push(text('assets/one-too-many.txt', ''));
    expect(rulesOf('s', files)).toEqual([['', 'TOO_MANY_FILES']]);
  });

  it('sorts problems by path, then rule', () => {
    expect(rulesOf('x', [text('zz.md', ''), text('SKILL.md', '---\nname: X--\n---\n')])).toEqual([
      ['SKILL.md#description', 'DESCRIPTION_MISSING'],
      ['SKILL.md#name', 'NAME_CHARACTERS'],
      ['SKILL.md#name', 'NAME_CONSECUTIVE_HYPHENS'],
      ['SKILL.md#name', 'NAME_HYPHEN_EDGE'],
      ['SKILL.md#name', 'NAME_MISMATCH'],
      ['zz.md', 'PATH_OUTSIDE_LAYOUT'],
    ]);
  });
});

describe('readMeta', () => {
  it('reads every field, joining a list of allowed tools with spaces', () => {
    const full = validFixtures().find((f) => f.name === 'full-skill')!;
    expect(readMeta(full.files)).toEqual({
      name: 'full-skill',
      description:
        'Uses every optional field: license, compatibility, metadata and allowed-tools, with scripts, references and assets.',
      license: 'Apache-2.0',
      compatibility: 'Requires bash and network access to example.org',
      metadata: { author: 'example-org', version: '1.0' },
      allowedTools: 'Bash(git:*) Read',
    });
  });

  it('gives nulls for absent optional fields and keeps a string allowed-tools as is', () => {
    const md = text('SKILL.md', '---\nname: s\ndescription: d\nallowed-tools: Read Write\n---\n');
    expect(readMeta([md])).toEqual({
      name: 's',
      description: 'd',
      license: null,
      compatibility: null,
      metadata: {},
      allowedTools: 'Read Write',
    });
  });

  it('returns null when SKILL.md is absent or not parseable', () => {
    expect(readMeta([])).toBeNull();
    expect(readMeta([text('SKILL.md', 'no frontmatter')])).toBeNull();
    expect(readMeta([text('SKILL.md', '---\ndescription: d\n---\n')])).toBeNull();
    expect(readMeta([{ path: 'SKILL.md', bytes: Uint8Array.of(0xff) }])).toBeNull();
  });
});
