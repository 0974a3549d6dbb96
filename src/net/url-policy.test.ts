import { describe, expect, it } from 'vitest';
import type { NetRefusal, NetRefusalReason } from './refusal.ts';
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
  it('accepts plain public web URLs and ordinary query values', () => {
    for (const u of [
      'https://example.org/',
      'http://example.org/a/b?q=climate+policy&page=2',
      'https://example.org:443/x',
      'https://example.org/?q=what is http',
      'https://example.org/?q=what+is+http%3A+a+guide',
      'https://example.org/?ref=docs',
      'https://example.org/?redirect=/home',
      'https://example.org/?path=/docs/a',
      'https://example.org/search?q=https',
      'https://example.org/?time=12:30',
      'https://example.org/?pageToken=abc&next_token=def',
      'https://example.org/?q=javascript',
      'https://en.wikipedia.org/wiki/File:Example.jpg',
      'https://example.org/wiki/HTTP',
      'https://example.org/blog/how-to-login-securely',
    ]) {
      expect(reasonOf(u), u).toBe('OK');
    }
  });

  it('checks ports against the allowed set', () => {
    expect(checkTargetUrl('http://example.org:8080/', new Set([80, 443, 8080])).hostname).toBe('example.org');
  });

  const refused: Array<[string, NetRefusalReason]> = [
    ['ftp://example.org/', 'SCHEME_NOT_ALLOWED'],
    ['file:///etc/passwd', 'SCHEME_NOT_ALLOWED'],
    ['gopher://example.org/', 'SCHEME_NOT_ALLOWED'],
    ['javascript:alert(1)', 'SCHEME_NOT_ALLOWED'],
    ['data:text/plain,hi', 'SCHEME_NOT_ALLOWED'],
    ['not a url', 'SCHEME_NOT_ALLOWED'],
    // WHATWG URL rejects zone ids in IPv6 hosts, so they never reach the resolver.
    ['http://[fe80::1%25eth0]/', 'SCHEME_NOT_ALLOWED'],
    ['http://example.org:8080/', 'PORT_NOT_ALLOWED'],
    ['https://example.org:22/', 'PORT_NOT_ALLOWED'],
    ['http://127.0.0.1:6379/', 'PORT_NOT_ALLOWED'],
    ['https://user:pw@example.org/', 'CREDENTIALS_IN_URL'],
    ['https://user@example.org/', 'CREDENTIALS_IN_URL'],
    ['https://example.org/?access_token=abc', 'CREDENTIALS_IN_URL'],
    ['https://example.org/?API_KEY=abc', 'CREDENTIALS_IN_URL'],
    ['https://example.org/?apiKey=abc', 'CREDENTIALS_IN_URL'],
    ['https://example.org/?api-key=abc', 'CREDENTIALS_IN_URL'],
    ['https://example.org/?client_secret=abc', 'CREDENTIALS_IN_URL'],
    ['https://example.org/?password=hunter2', 'CREDENTIALS_IN_URL'],
    ['https://example.org/?X-Amz-Signature=abc', 'CREDENTIALS_IN_URL'],
    ['https://example.org/?refresh_token=abc', 'CREDENTIALS_IN_URL'],
    ['https://example.org/page;jsessionid=ABC123', 'CREDENTIALS_IN_URL'],
    [`https://example.org/p/cd_prj_${'a'.repeat(52)}`, 'CREDENTIALS_IN_URL'],
    [`https://example.org/?q=cd_acc_${'b'.repeat(24)}`, 'CREDENTIALS_IN_URL'],
    [`https://example.org/?q=cd%255Facc%255F${'b'.repeat(24)}`, 'CREDENTIALS_IN_URL'],
    [`https://example.org/?q=ghp_${'a'.repeat(36)}`, 'CREDENTIALS_IN_URL'],
    ['https://proxy.example/?u=https://internal.example/', 'NESTED_URL'],
    ['https://proxy.example/?u=HTTPS://x', 'NESTED_URL'],
    ['https://proxy.example/?u=https%3A%2F%2Finternal.example%2F', 'NESTED_URL'],
    ['https://proxy.example/?u=https%253A%252F%252Finternal.example', 'NESTED_URL'],
    ['https://proxy.example/?u=https%25253A%25252F%25252Finternal.example', 'NESTED_URL'],
    ['https://proxy.example/?u=//internal.example/x', 'NESTED_URL'],
    ['https://proxy.example/?next=%2F%2Fevil.example', 'NESTED_URL'],
    ['https://proxy.example/?next=%252F%252Fevil.example', 'NESTED_URL'],
    ['https://proxy.example/?q=//evil.example/path', 'NESTED_URL'],
    ['https://proxy.example/?u=%5C%5Cevil.example', 'NESTED_URL'],
    ['https://proxy.example/?u=/%5Cevil.example', 'NESTED_URL'],
    ['https://proxy.example/?u=http:evil.example', 'NESTED_URL'],
    ['https://proxy.example/?u=ht%09tp://evil.example', 'NESTED_URL'],
    ['https://proxy.example/?u=%20https://evil.example', 'NESTED_URL'],
    ['https://proxy.example/?https://evil.example', 'NESTED_URL'],
    ['https://proxy.example/?u=ftp://evil.example', 'NESTED_URL'],
    ['https://proxy.example/?u=wss://evil.example', 'NESTED_URL'],
    ['https://proxy.example/?u=file:///etc/passwd', 'NESTED_URL'],
    ['https://proxy.example/?a=1&b=x%20http://evil.example', 'NESTED_URL'],
    ['https://proxy.example/fetch/https://internal.example/', 'NESTED_URL'],
    ['https://proxy.example/fetch/http%3A%2F%2Finternal.example', 'NESTED_URL'],
    ['https://proxy.example/redirect/https%3A%2F%2Fx.example', 'NESTED_URL'],
    ['https://proxy.example/redirect/https%25253A%25252F%25252Fx.example', 'NESTED_URL'],
    ['https://proxy.example/proxy/http:/x.example', 'NESTED_URL'],
    ['https://proxy.example/proxy/HTTP:/x.example', 'NESTED_URL'],
    ['https://proxy.example/proxy/file:///etc/passwd', 'NESTED_URL'],
    ['https://proxy.example/go/%2F%2Fevil.example', 'NESTED_URL'],
    ['https://proxy.example/a%2Fhttp:%2Fx.example', 'NESTED_URL'],
  ];
  for (const [url, reason] of refused) {
    it(`refuses ${url} as ${reason}`, () => expect(reasonOf(url)).toBe(reason));
  }

  it('names the query parameter that holds a nested URL', () => {
    try {
      checkTargetUrl('https://proxy.example/?next=%2F%2Fevil.example', ports);
      expect.unreachable();
    } catch (err) {
      expect((err as NetRefusal).details).toMatchObject({ parameter: 'next' });
    }
  });
});
