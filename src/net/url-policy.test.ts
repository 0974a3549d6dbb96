import { describe, expect, it } from 'vitest';
import type { NetRefusal, NetRefusalReason } from './refusal.ts';
import { checkServiceUrl, checkTargetUrl, urlCarriesCredential } from './url-policy.ts';

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
    // A stray `%` does not stop the rest of the value from being decoded.
    ['https://proxy.example/?u=%25%20https%253A%252F%252Fevil.example', 'NESTED_URL'],
    ['https://proxy.example/go/%25%20https%253A%252F%252Fevil.example', 'NESTED_URL'],
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

  const base32 = 'abcdefghijklmnopqrstuvwxyz234567';
  const ghp = `ghp_${'A1b2'.repeat(9)}`;
  const secretFirst: string[] = [
    'http://u:pw@example.org:8080/',
    'ftp://u:pw@x/',
    'gopher://u@example.org/',
    `https://x.org:8443/?q=cd%5Facc%5F${base32}`,
    `https://x.org:22/?u=https://y.example/&q=${ghp}`,
    `https://proxy.example/?u=https%3A%2F%2Fy.example%2F%3Ft%3D${encodeURIComponent(ghp)}`,
    `https://proxy.example/?u=${encodeURIComponent(`https://y.example/?t=${encodeURIComponent(ghp)}`)}`,
    'https://proxy.example:9999/?access_token=x&u=https://y.example/',
    'https://proxy.example:9999/a;jsessionid=ABC/https://y.example/',
    `javascript:fetch('${ghp}')`,
    // A malformed escape elsewhere does not stop the rest from being decoded.
    `https://example.org/?a=%&q=cd%5Facc%5F${base32}`,
    `https://example.org/?a=%E0%A4&q=cd%255Facc%255F${base32}`,
    // The host is lower-cased by parsing; the text as given still shows the key.
    'https://AKIAABCDEFGHIJKLMNOP.example.org/',
    // A server reads `+` in a query as a space.
    `https://example.org/?q=Bearer+${'x'.repeat(24)}`,
  ];
  for (const url of secretFirst) {
    it(`refuses ${url} as CREDENTIALS_IN_URL before any other check`, () => {
      expect(reasonOf(url)).toBe('CREDENTIALS_IN_URL');
      expect(urlCarriesCredential(url)).toBe(true);
    });
  }

  it('agrees with urlCarriesCredential on every refused example', () => {
    for (const [url, reason] of refused) {
      expect(urlCarriesCredential(url), url).toBe(reason === 'CREDENTIALS_IN_URL');
    }
  });

  it('keeps an unparsable URL a scheme refusal', () => {
    expect(reasonOf(`http://u:pw@[::1/${ghp}`)).toBe('SCHEME_NOT_ALLOWED');
  });
});

describe('urlCarriesCredential', () => {
  it('is false for URLs without credentials, whatever else is wrong with them', () => {
    for (const u of [
      'https://example.org/?q=climate',
      'ftp://example.org/',
      'http://example.org:8080/',
      'https://proxy.example/?u=https://internal.example/',
      'not a url',
      'https://example.org/?pageToken=abc',
    ]) {
      expect(urlCarriesCredential(u), u).toBe(false);
    }
  });

  it('scans text that does not parse as a URL once decoded', () => {
    expect(urlCarriesCredential(`http://[::1/?t=cd%5Fref%5F${'a'.repeat(20)}`)).toBe(true);
    expect(urlCarriesCredential(`not a url ${'ghp_'}${'a'.repeat(36)}`)).toBe(true);
  });
});

describe('checkServiceUrl', () => {
  it('checks only the scheme: any port, and a query naming a URL, pass', () => {
    expect(checkServiceUrl('http://10.0.0.5:8888/search?q=site%3Ahttps%3A%2F%2Fexample.org').port).toBe(
      '8888',
    );
    expect(() => checkServiceUrl('ftp://x/')).toThrow(/Only http and https/);
    expect(() => checkServiceUrl('nope')).toThrow(/valid absolute URL/);
  });
});
