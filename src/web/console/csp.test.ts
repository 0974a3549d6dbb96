import { describe, expect, it } from 'vitest';
import { CONSOLE_CSP, consentCsp, formTargetSource } from './csp.ts';

describe('form-action for a consent request', () => {
  it('allows the origin of an http(s) return address, with its port', () => {
    expect(formTargetSource('http://127.0.0.1:9/cb')).toBe('http://127.0.0.1:9');
    expect(formTargetSource('https://App.Example.com/oauth/cb?x=1')).toBe('https://app.example.com');
    expect(formTargetSource('https://example.com:443/cb')).toBe('https://example.com');
    expect(consentCsp('https://example.com:8443/cb')).toBe(
      "default-src 'self'; frame-ancestors 'none'; form-action 'self' https://example.com:8443; base-uri 'none'",
    );
  });

  it('allows a private-use scheme as a scheme-source, and an IPv6 literal by its scheme', () => {
    expect(formTargetSource('com.example.app:/callback')).toBe('com.example.app:');
    expect(formTargetSource('http://[::1]:8080/cb')).toBe('http:');
  });

  it('adds nothing a registration could use to write its own directives', () => {
    for (const uri of ['https://a;b/', "https://a'b/", 'https://a,b/', 'https://a*b/', 'not a uri']) {
      expect(formTargetSource(uri)).toBeNull();
      expect(consentCsp(uri)).toBe(CONSOLE_CSP);
    }
  });
});
