import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { validFixtures } from '../../../../test/fixtures/skills/fixtures.ts';
import { buildZip, PACKAGE_LIMITS, type PackageFile, readZip, validatePackage } from './index.ts';
import { inflateCapped } from './zip-read.ts';

type Entries = Parameters<typeof zipSync>[0];
const enc = (s: string) => new TextEncoder().encode(s);
const SKILL = enc('---\nname: pkg\ndescription: A test skill.\n---\n# Body\n');
const MiB = 1024 * 1024;

const zip = (entries: Entries) => zipSync(entries, { mtime: new Date(1980, 0, 1) });
const view = (z: Uint8Array) => new DataView(z.buffer, z.byteOffset, z.byteLength);
const sortByPath = (files: PackageFile[]) => [...files].sort((a, b) => (a.path < b.path ? -1 : 1));
const summary = (z: Uint8Array) => {
  const { files, problems } = readZip(z);
  return { paths: files.map((f) => f.path), problems: problems.map((p) => [p.path, p.rule]) };
};

/** Offsets of each central directory header and of its local header, by entry name. */
function headers(z: Uint8Array): Map<string, { central: number; local: number }> {
  const v = view(z);
  const eocd = z.length - 22;
  const out = new Map<string, { central: number; local: number }>();
  for (let i = 0, at = v.getUint32(eocd + 16, true); i < v.getUint16(eocd + 10, true); i++) {
    const n = v.getUint16(at + 28, true);
    const name = new TextDecoder().decode(z.subarray(at + 46, at + 46 + n));
    out.set(name, { central: at, local: v.getUint32(at + 42, true) });
    at += 46 + n + v.getUint16(at + 30, true) + v.getUint16(at + 32, true);
  }
  return out;
}
const header = (z: Uint8Array, name: string) => headers(z).get(name)!;

describe('readZip', () => {
  it('extracts files and strips a common top folder', () => {
    const z = zip({
      'pkg/SKILL.md': SKILL,
      'pkg/scripts/run.sh': enc('echo hi\n'),
      'pkg/assets/': new Uint8Array(),
    });
    const { files, problems } = readZip(z);
    expect(problems).toEqual([]);
    expect(sortByPath(files)).toEqual([
      { path: 'SKILL.md', bytes: SKILL },
      { path: 'scripts/run.sh', bytes: enc('echo hi\n') },
    ]);
  });

  it('keeps paths when entries do not share one top folder', () => {
    expect(summary(zip({ 'SKILL.md': SKILL, 'scripts/a.sh': enc('x') }))).toEqual({
      paths: ['SKILL.md', 'scripts/a.sh'],
      problems: [],
    });
    expect(summary(zip({ 'a/SKILL.md': SKILL, 'b/x': enc('x') })).problems).toEqual([
      ['a/SKILL.md', 'PATH_OUTSIDE_LAYOUT'],
      ['b/x', 'PATH_OUTSIDE_LAYOUT'],
    ]);
  });

  it('refuses traversal and absolute entries without extracting them', () => {
    expect(summary(zip({ 'SKILL.md': SKILL, '../evil': enc('x'), '/etc/x': enc('x') }))).toEqual({
      paths: ['SKILL.md'],
      problems: [
        ['../evil', 'PATH_TRAVERSAL'],
        ['/etc/x', 'PATH_ABSOLUTE'],
      ],
    });
  });

  it("never strips a '..' top folder into a clean path", () => {
    expect(summary(zip({ '../SKILL.md': SKILL })).problems).toEqual([['../SKILL.md', 'PATH_TRAVERSAL']]);
    expect(summary(zip({ 'pkg/SKILL.md': SKILL, 'pkg/../../evil': enc('x') })).problems).toEqual([
      ['../../evil', 'PATH_TRAVERSAL'],
    ]);
  });

  it('refuses symlink entries', () => {
    const link: Entries[string] = [enc('/etc/passwd'), { os: 3, attrs: 0o120777 * 0x10000 }];
    const regular: Entries[string] = [enc('x'), { os: 3, attrs: 0o100755 * 0x10000 }];
    expect(
      summary(zip({ 'pkg/SKILL.md': SKILL, 'pkg/scripts/link': link, 'pkg/scripts/run': regular })),
    ).toEqual({
      paths: ['SKILL.md', 'scripts/run'],
      problems: [['scripts/link', 'SYMLINK']],
    });
  });

  it('refuses duplicate entries and names that are not UTF-8', () => {
    const z = zip({ 'SKILL.md': SKILL, 'SKILL.mX': enc('second'), 'assets/aX': enc('x') });
    const h = headers(z);
    for (const at of [h.get('SKILL.mX')!.central + 46 + 7, h.get('SKILL.mX')!.local + 30 + 7]) z[at] = 0x64; // 'd'
    z[h.get('assets/aX')!.central + 46 + 8] = 0xff;
    const { files, problems } = readZip(z);
    expect(files).toEqual([{ path: 'SKILL.md', bytes: SKILL }]);
    expect(problems.map((p) => [p.path, p.rule])).toEqual([
      ['SKILL.md', 'PATH_DUPLICATE'],
      ['assets/a\uFFFD', 'PATH_CHARACTERS'],
    ]);
  });

  it('stops a zip bomb that declares small sizes at the file cap, quickly', () => {
    const z = zip({
      'pkg/SKILL.md': SKILL,
      'pkg/assets/zeros.bin': [new Uint8Array(20 * MiB), { level: 9 }],
    });
    const h = header(z, 'pkg/assets/zeros.bin');
    view(z).setUint32(h.central + 24, 1000, true);
    view(z).setUint32(h.local + 22, 1000, true);
    const started = performance.now();
    expect(summary(z)).toEqual({ paths: ['SKILL.md'], problems: [['assets/zeros.bin', 'FILE_TOO_LARGE']] });
    expect(performance.now() - started).toBeLessThan(1000);

    // The inflater gives up within one slice of the cap instead of producing all 20 MiB.
    const v = view(z);
    const start = h.local + 30 + v.getUint16(h.local + 26, true) + v.getUint16(h.local + 28, true);
    const out = inflateCapped(
      z.subarray(start, start + v.getUint32(h.central + 20, true)),
      PACKAGE_LIMITS.fileBytes,
    );
    expect(out.bytes).toBeNull();
    expect(out.produced).toBeLessThanOrEqual(PACKAGE_LIMITS.fileBytes + 2 * MiB);
  });

  it('stops the whole import when the unpacked total passes the package cap', () => {
    const entries: Entries = { 'pkg/SKILL.md': SKILL };
    for (let i = 0; i < 9; i++) entries[`pkg/assets/${i}.bin`] = new Uint8Array(1_000_000);
    expect(summary(zip(entries))).toEqual({ paths: [], problems: [['', 'PACKAGE_TOO_LARGE']] });
  });

  it('refuses a stored file over the file cap', () => {
    const z = zip({
      'SKILL.md': SKILL,
      'assets/big.bin': [new Uint8Array(PACKAGE_LIMITS.fileBytes + 1), { level: 0 }],
    });
    expect(summary(z)).toEqual({ paths: ['SKILL.md'], problems: [['assets/big.bin', 'FILE_TOO_LARGE']] });
  });

  it('refuses more entries than the file limit', () => {
    const entries: Entries = { 'pkg/SKILL.md': SKILL };
    for (let i = 0; i < PACKAGE_LIMITS.files; i++) entries[`pkg/assets/${i}.txt`] = enc('x');
    expect(summary(zip(entries))).toEqual({ paths: [], problems: [['', 'TOO_MANY_FILES']] });
  });

  it('refuses an entry whose CRC-32 does not match', () => {
    const z = zip({ 'SKILL.md': SKILL, 'references/a.md': enc('# A\n') });
    const h = header(z, 'references/a.md');
    const v = view(z);
    v.setUint32(h.central + 16, ~v.getUint32(h.central + 16, true), true);
    v.setUint32(h.local + 14, ~v.getUint32(h.local + 14, true), true);
    expect(summary(z)).toEqual({ paths: ['SKILL.md'], problems: [['references/a.md', 'ZIP_INVALID']] });
  });

  it('refuses corrupt deflate data and data outside the archive', () => {
    const z = zip({ 'SKILL.md': SKILL, 'references/a.md': enc('# A\n'.repeat(100)) });
    const h = header(z, 'references/a.md');
    z.fill(0xff, h.local + 30 + 'references/a.md'.length, h.local + 30 + 'references/a.md'.length + 4);
    const moved = zip({ 'SKILL.md': SKILL });
    view(moved).setUint32(header(moved, 'SKILL.md').central + 42, 0x7fff_0000, true);
    expect(summary(z).problems).toEqual([['references/a.md', 'ZIP_INVALID']]);
    expect(summary(moved).problems).toEqual([['SKILL.md', 'ZIP_INVALID']]);
  });

  it('refuses encrypted entries and unsupported compression methods', () => {
    const z = zip({ 'SKILL.md': SKILL, 'assets/secret': enc('x'), 'assets/bz': enc('y') });
    z[header(z, 'assets/secret').central + 8]! |= 1;
    view(z).setUint16(header(z, 'assets/bz').central + 10, 12, true);
    expect(summary(z)).toEqual({
      paths: ['SKILL.md'],
      problems: [
        ['assets/bz', 'ZIP_UNSUPPORTED'],
        ['assets/secret', 'ZIP_UNSUPPORTED'],
      ],
    });
  });

  it('refuses ZIP64 and multi-volume archives, and ZIP64 entries', () => {
    const volume = zip({ 'SKILL.md': SKILL });
    view(volume).setUint16(volume.length - 22 + 4, 1, true);
    expect(summary(volume).problems).toEqual([['', 'ZIP_UNSUPPORTED']]);
    const archive = zip({ 'SKILL.md': SKILL });
    view(archive).setUint16(archive.length - 22 + 10, 0xffff, true);
    expect(summary(archive).problems).toEqual([['', 'ZIP_UNSUPPORTED']]);
    const plain = zip({ 'SKILL.md': SKILL });
    const locator = new Uint8Array(plain.length + 20);
    locator.set(plain.subarray(0, -22));
    view(locator).setUint32(plain.length - 22, 0x07064b50, true);
    locator.set(plain.subarray(-22), plain.length - 2);
    expect(summary(locator).problems).toEqual([['', 'ZIP_UNSUPPORTED']]);
    const entry = zip({ 'SKILL.md': SKILL, 'assets/x': enc('x') });
    view(entry).setUint32(header(entry, 'assets/x').central + 24, 0xffffffff, true);
    expect(summary(entry)).toEqual({ paths: ['SKILL.md'], problems: [['assets/x', 'ZIP_UNSUPPORTED']] });
  });

  it('reads an archive with an end-of-central-directory comment', () => {
    const z = zip({ 'SKILL.md': SKILL });
    const comment = enc('made by hand PK\u0005\u0006 not a record');
    const withComment = new Uint8Array(z.length + comment.length);
    withComment.set(z);
    withComment.set(comment, z.length);
    view(withComment).setUint16(z.length - 2, comment.length, true);
    expect(summary(withComment)).toEqual({ paths: ['SKILL.md'], problems: [] });
  });

  it('refuses bytes that are not a zip archive', () => {
    expect(summary(enc('definitely not a zip file'))).toEqual({ paths: [], problems: [['', 'ZIP_INVALID']] });
    expect(summary(new Uint8Array())).toEqual({ paths: [], problems: [['', 'ZIP_INVALID']] });
    const truncated = zip({ 'SKILL.md': SKILL }).subarray(0, -1);
    expect(summary(truncated).problems).toEqual([['', 'ZIP_INVALID']]);
  });

  it('refuses input over the import size without parsing it', () => {
    expect(summary(new Uint8Array(PACKAGE_LIMITS.importBytes + 1))).toEqual({
      paths: [],
      problems: [['', 'ZIP_TOO_LARGE']],
    });
  });
});

describe('buildZip', () => {
  const full = validFixtures().find((f) => f.name === 'full-skill')!;

  it('is deterministic whatever the input order', () => {
    const a = buildZip('full-skill', full.files);
    const b = buildZip('full-skill', [...full.files].reverse());
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    const v = view(a);
    expect(v.getUint16(10, true)).toBe(0); // DOS time 00:00:00
    expect(v.getUint16(12, true)).toBe((0 << 9) | (1 << 5) | 1); // DOS date 1980-01-01
  });

  it('puts files under the root folder, sorted by path', () => {
    const names = [...headers(buildZip('full-skill', [...full.files].reverse())).keys()];
    expect(names).toEqual(full.files.map((f) => `full-skill/${f.path}`).sort());
  });

  it('round-trips through readZip into a valid package', () => {
    const { files, problems } = readZip(buildZip('full-skill', full.files));
    expect(problems).toEqual([]);
    expect(sortByPath(files)).toEqual(sortByPath(full.files));
    expect(validatePackage('full-skill', files)).toEqual([]);
  });

  it('refuses a root that is not one safe segment', () => {
    for (const root of ['', '..', 'a/b', 'C:']) expect(() => buildZip(root, full.files)).toThrow();
  });
});
