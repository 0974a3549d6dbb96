import { describe, expect, it } from 'vitest';
import { checkPath, isText, PACKAGE_LIMITS } from './index.ts';

const rule = (path: string) => checkPath(path)?.rule ?? null;

describe('checkPath', () => {
  it('accepts SKILL.md, the allowed top-level files and the layout folders', () => {
    for (const path of [
      'SKILL.md',
      'LICENSE',
      'LICENSE.txt',
      'LICENSE.md',
      'README.md',
      'scripts/run.sh',
      'references/deep/notes.md',
      'assets/logo ✓.png',
    ]) {
      expect(checkPath(path), path).toBeNull();
    }
  });

  it('refuses an empty path and one over the length limit', () => {
    expect(rule('')).toBe('PATH_LENGTH');
    const long = `assets/${'x'.repeat(PACKAGE_LIMITS.pathChars - 6)}`;
    expect(rule(long)).toBe('PATH_LENGTH');
    expect(rule(long.slice(0, -1))).toBeNull();
  });

  it('refuses absolute paths and drive letters', () => {
    expect(rule('/etc/passwd')).toBe('PATH_ABSOLUTE');
    expect(rule('C:/x/SKILL.md')).toBe('PATH_ABSOLUTE');
  });

  it('refuses backslashes', () => {
    expect(rule('scripts\\run.sh')).toBe('PATH_BACKSLASH');
  });

  it("refuses '.' and '..' segments", () => {
    expect(rule('../evil')).toBe('PATH_TRAVERSAL');
    expect(rule('scripts/../../evil')).toBe('PATH_TRAVERSAL');
    expect(rule('scripts/./run.sh')).toBe('PATH_TRAVERSAL');
  });

  it('refuses empty segments', () => {
    expect(rule('scripts//run.sh')).toBe('PATH_EMPTY_SEGMENT');
    expect(rule('scripts/')).toBe('PATH_EMPTY_SEGMENT');
  });

  it('refuses control characters and NUL', () => {
    expect(rule('scripts/a\u0000b')).toBe('PATH_CHARACTERS');
    expect(rule('scripts/a\nb')).toBe('PATH_CHARACTERS');
    expect(rule('scripts/a\u009bb')).toBe('PATH_CHARACTERS');
  });

  it('refuses top-level entries outside the layout', () => {
    expect(rule('notes.md')).toBe('PATH_OUTSIDE_LAYOUT');
    expect(rule('docs/a.md')).toBe('PATH_OUTSIDE_LAYOUT');
    expect(rule('scripts')).toBe('PATH_OUTSIDE_LAYOUT');
    expect(rule('skill.md')).toBe('PATH_OUTSIDE_LAYOUT');
  });

  it('names the path in the problem', () => {
    expect(checkPath('../evil')).toMatchObject({ path: '../evil', rule: 'PATH_TRAVERSAL' });
  });
});

describe('isText', () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  it('accepts UTF-8 text', () => {
    expect(isText(bytes('héllo ✓\n'))).toBe(true);
    expect(isText(new Uint8Array())).toBe(true);
  });
  it('refuses invalid UTF-8 and NUL bytes', () => {
    expect(isText(Uint8Array.of(0x68, 0xff, 0x69))).toBe(false);
    expect(isText(bytes('a\u0000b'))).toBe(false);
  });
});
