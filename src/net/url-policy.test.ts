import { describe, expect, it } from 'vitest';
import type { NetRefusal } from './refusal.ts';
import { checkTargetUrl } from './url-policy.ts';

const ports = new Set([80, 443]);
const reasonOf = (url: string) => {
  try {
    checkTargetUrl(url, ports);
    return 'OK';
  } catch (err) {
    return (err as NetRefusal).reason;
  }
};

describe('checkTargetUrl', () => {
  it('accepts plain public web URLs', () => {
    for (const u of [
      'https://example.org/',
      'http://example.org/a/b?q=climate+policy&page=2',
      'https://example.org:443/x',
    ]) {
      expect(reasonOf(u)).toBe('OK');
    }
  });

  it('refuses other schemes and ports', () => {
    expect(reasonOf('ftp://example.org/')).toBe('SCHEME_NOT_ALLOWED');
    expect(reasonOf('file:///etc/passwd')).toBe('SCHEME_NOT_ALLOWED');
    expect(reasonOf('not a url')).toBe('SCHEME_NOT_ALLOWED');
    expect(reasonOf('http://example.org:8080/')).toBe('PORT_NOT_ALLOWED');
    expect(checkTargetUrl('http://example.org:8080/', new Set([80, 443, 8080])).hostname).toBe('example.org');
  });

  it('refuses credentials in any form', () => {
    expect(reasonOf('https://user:pw@example.org/')).toBe('CREDENTIALS_IN_URL');
    expect(reasonOf('https://example.org/?access_token=abc')).toBe('CREDENTIALS_IN_URL');
    expect(reasonOf('https://example.org/?API_KEY=abc')).toBe('CREDENTIALS_IN_URL');
    expect(reasonOf(`https://example.org/p/cd_prj_${'a'.repeat(52)}`)).toBe('CREDENTIALS_IN_URL');
  });

  it('refuses URLs folded into other URLs, encoded or not', () => {
    expect(reasonOf('https://proxy.example/?u=https://internal.example/')).toBe('NESTED_URL');
    expect(reasonOf('https://proxy.example/?u=https%3A%2F%2Finternal.example%2F')).toBe('NESTED_URL');
    expect(reasonOf('https://proxy.example/?u=https%253A%252F%252Finternal.example')).toBe('NESTED_URL');
    expect(reasonOf('https://proxy.example/?u=//internal.example/x')).toBe('NESTED_URL');
    expect(reasonOf('https://proxy.example/fetch/https://internal.example/')).toBe('NESTED_URL');
    expect(reasonOf('https://proxy.example/fetch/http%3A%2F%2Finternal.example')).toBe('NESTED_URL');
  });
});
