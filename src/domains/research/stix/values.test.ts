import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../kernel/errors.ts';
import {
  abstractOf,
  cveIds,
  modifiedTime,
  parsePurl,
  purlsIn,
  sha256Hex,
  stixTime,
  webUrl,
} from './values.ts';

describe('cveIds', () => {
  it('finds CVE ids by the strict syntax, sorted and distinct', () => {
    expect(cveIds('CVE-2022-3786 and CVE-2022-3602, again CVE-2022-3602; CVE-2021-44228.')).toEqual([
      'CVE-2021-44228',
      'CVE-2022-3602',
      'CVE-2022-3786',
    ]);
  });

  it.each([
    'cve-2022-3602',
    'CVE-2022-0602x',
    'XCVE-2022-3602',
    'CVE-22-3602',
    'CVE-2022-123',
    'CVE-2022-01234',
    'CVE-2022-12345678',
    'GHSA-CVE-2022-3602',
  ])('ignores %s', (text) => {
    expect(cveIds(text)).toEqual([]);
  });
});

describe('purls', () => {
  it('finds purls in text without trailing punctuation', () => {
    expect(purlsIn('see pkg:deb/debian/openssl@3.0.5-4?arch=amd64, and pkg:npm/%40scope/lib@1.2.3.')).toEqual(
      ['pkg:deb/debian/openssl@3.0.5-4?arch=amd64', 'pkg:npm/%40scope/lib@1.2.3'],
    );
  });

  it('parses name and version', () => {
    expect(parsePurl('pkg:npm/%40scope/lib@1.2.3')).toEqual({ name: 'lib', version: '1.2.3' });
    expect(parsePurl('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1?type=jar')).toEqual({
      name: 'log4j-core',
      version: '2.14.1',
    });
    expect(parsePurl('pkg:generic/zlib')).toEqual({ name: 'zlib', version: null });
    expect(parsePurl('pkg:generic/%E0%A4%A@1')).toBeNull();
  });
});

describe('stixTime', () => {
  it('writes milliseconds in UTC, truncating finer digits', () => {
    expect(stixTime('2023-11-01T11:45:00.123456Z', 'x')).toBe('2023-11-01T11:45:00.123Z');
    expect(stixTime('2023-11-01T11:03:40.12+02:00', 'x')).toBe('2023-11-01T09:03:40.120Z');
    expect(stixTime('2023-11-01T10:30:00Z', 'x')).toBe('2023-11-01T10:30:00.000Z');
  });

  it('refuses times without a zone or that do not parse', () => {
    for (const bad of ['2023-11-01T10:30:00', 'yesterday', '']) {
      expect(() => stixTime(bad, 'findings.x.createdAt')).toThrow(DomainError);
    }
  });

  it('keeps modified at or after created', () => {
    expect(modifiedTime('2023-11-01T13:20:00.000Z', '2023-11-01T13:19:00.000Z', 'x')).toBe(
      '2023-11-01T13:20:00.000Z',
    );
    expect(modifiedTime('2023-11-01T13:20:00.000Z', null, 'x')).toBe('2023-11-01T13:20:00.000Z');
  });
});

describe('sha256Hex and webUrl', () => {
  it('strips the sha256: prefix and lower-cases', () => {
    expect(sha256Hex(`sha256:${'AB'.repeat(32)}`, 'x')).toBe('ab'.repeat(32));
    expect(() => sha256Hex('sha256:abc', 'x')).toThrow(DomainError);
  });

  it('keeps http(s) URLs only', () => {
    expect(webUrl('https://example.org/a b')).toBe('https://example.org/a%20b');
    expect(webUrl('file:///etc/passwd')).toBeNull();
    expect(webUrl('not a url')).toBeNull();
    expect(webUrl(null)).toBeNull();
  });
});

describe('abstractOf', () => {
  it('keeps short first lines and cuts long ones at a word', () => {
    expect(abstractOf('  Short claim.\nSecond line')).toBe('Short claim.');
    const long = `${'word '.repeat(40)}end`;
    const cut = abstractOf(long, 50);
    expect([...cut].length).toBeLessThanOrEqual(50);
    expect(cut.endsWith('…')).toBe(true);
  });
});
