import { describe, expect, it } from 'vitest';
import { dirOf, moduleCandidates, normalizePath, resolveSpecifier, SandboxPathError } from './paths.ts';

describe('normalizePath', () => {
  it('keeps plain relative paths and drops empty and "." segments', () => {
    expect(normalizePath('a/b.txt')).toBe('a/b.txt');
    expect(normalizePath('./a//b.txt')).toBe('a/b.txt');
  });

  it.each([
    ['../x'],
    ['a/../../x'],
    ['a/..'],
    ['/etc/passwd'],
    ['C:/Windows'],
    ['a\\b'],
    ['..\\x'],
    ['a\u0000b'],
    [''],
    ['.'],
    ['x'.repeat(600)],
    [Array(40).fill('d').join('/')],
  ])('refuses %j', (raw) => {
    expect(() => normalizePath(raw)).toThrow(SandboxPathError);
  });
});

describe('resolveSpecifier', () => {
  it('resolves relative specifiers from the module folder, climbing within the tree', () => {
    expect(resolveSpecifier('', './lib.js')).toBe('lib.js');
    expect(resolveSpecifier('test', '../src/a')).toBe('src/a');
    expect(resolveSpecifier('a/b', './c/../d')).toBe('a/b/d');
  });

  it('refuses bare names, absolute paths and climbs above the root', () => {
    expect(() => resolveSpecifier('', 'fs')).toThrow(/no built-in or installed modules/);
    expect(() => resolveSpecifier('', 'node:child_process')).toThrow(SandboxPathError);
    expect(() => resolveSpecifier('', '/etc/passwd')).toThrow(SandboxPathError);
    expect(() => resolveSpecifier('a', '../../x')).toThrow(/outside the workspace/);
    expect(() => resolveSpecifier('', 'https://example.test/x.js')).toThrow(SandboxPathError);
  });

  it('tries the file, then .js, .json and index.js', () => {
    expect(moduleCandidates('lib')).toEqual(['lib', 'lib.js', 'lib.json', 'lib/index.js']);
    expect(dirOf('a/b/c.js')).toBe('a/b');
    expect(dirOf('c.js')).toBe('');
  });
});
