import { describe, expect, it } from 'vitest';
import { lockedOne } from './locked.ts';

/** A stand-in for a drizzle select: records how it was locked and answers `rows`. */
function select<R>(rows: R[]) {
  const calls: unknown[][] = [];
  return {
    calls,
    for: async (...args: unknown[]) => {
      calls.push(args);
      return rows;
    },
  };
}

describe('lockedOne', () => {
  const refusal = () => new Error('none');

  it('locks FOR UPDATE and answers the row found', async () => {
    const q = select([{ id: 'a' }]);
    await expect(lockedOne(q, refusal)).resolves.toEqual({ id: 'a' });
    expect(q.calls).toEqual([['update', undefined]]);
  });

  it('passes the table to lock on, for a join', async () => {
    const q = select([{ id: 'a' }]);
    const table = {} as never;
    await lockedOne(q, refusal, { of: table });
    expect(q.calls).toEqual([['update', { of: table }]]);
  });

  it('refuses when no row is found, or the row found is not the caller’s', async () => {
    await expect(lockedOne(select([]), refusal)).rejects.toThrow('none');
    await expect(lockedOne(select([{ id: 'a' }]), refusal, { only: (r) => r.id === 'b' })).rejects.toThrow(
      'none',
    );
  });
});
