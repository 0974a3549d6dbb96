import { describe, expect, it } from 'vitest';
import { freshSeconds } from './freshness.ts';

const bounds = { defaultSeconds: 600, maxSeconds: 86_400 };
const now = new Date('2026-12-02T08:00:00Z');
const fresh = (headers: Record<string, string>) => freshSeconds(headers, bounds, now);

describe('freshSeconds (RFC 9111 §4.2.1)', () => {
  it('takes max-age, less the Age the response already has', () => {
    expect(fresh({ 'cache-control': 'public, max-age=300' })).toBe(300);
    expect(fresh({ 'cache-control': 'max-age="120"' })).toBe(120);
    expect(fresh({ 'cache-control': 'max-age=300', age: '100' })).toBe(200);
    expect(fresh({ 'cache-control': 'max-age=300', age: '400' })).toBe(0);
  });

  it('is stale at once for no-store, no-cache and a malformed max-age', () => {
    expect(fresh({ 'cache-control': 'no-store' })).toBe(0);
    expect(fresh({ 'cache-control': 'max-age=300, no-cache' })).toBe(0);
    expect(fresh({ 'cache-control': 'max-age=soon' })).toBe(0);
  });

  it('falls back to Expires less Date, where an invalid Expires has expired', () => {
    expect(fresh({ expires: 'Wed, 02 Dec 2026 08:10:00 GMT', date: 'Wed, 02 Dec 2026 08:00:00 GMT' })).toBe(
      600,
    );
    expect(fresh({ expires: 'Wed, 02 Dec 2026 08:01:00 GMT' })).toBe(60);
    expect(fresh({ expires: '0' })).toBe(0);
    // max-age wins over Expires (§5.3).
    expect(fresh({ 'cache-control': 'max-age=5', expires: 'Wed, 02 Dec 2026 09:00:00 GMT' })).toBe(5);
  });

  it('uses the default without caching headers, and never exceeds the bound', () => {
    expect(fresh({})).toBe(600);
    expect(fresh({ 'cache-control': 'max-age=31536000' })).toBe(86_400);
  });
});
