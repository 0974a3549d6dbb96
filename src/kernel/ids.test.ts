import { describe, expect, it } from 'vitest';
import { newId } from './ids.ts';

describe('newId', () => {
  it('is the prefix and a ULID that sorts by time, increasing within one millisecond', () => {
    const at = new Date('2099-01-01T00:00:00Z');
    const ids = Array.from({ length: 100 }, () => newId('msg', at));
    for (const id of ids) expect(id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(100);
    expect(newId('msg', new Date(at.getTime() + 1)) > ids[99]!).toBe(true);
  });

  it('draws its random part from the whole alphabet, fresh for each millisecond', () => {
    const start = Date.parse('2100-01-01T00:00:00Z');
    // (Times later than any other test's, so the factory draws new randomness for each.)
    // The first random character of ids made in 3,000 different milliseconds: every one of the
    // 32 symbols appears, and none far more often than its share.
    const counts = new Map<string, number>();
    for (let i = 0; i < 3_000; i++) {
      const symbol = newId('evt', new Date(start + i)).slice(4 + 10, 4 + 11);
      counts.set(symbol, (counts.get(symbol) ?? 0) + 1);
    }
    expect(counts.size).toBe(32);
    for (const n of counts.values()) expect(n).toBeLessThan((3_000 / 32) * 2);
  });
});
