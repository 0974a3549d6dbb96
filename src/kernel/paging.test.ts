import { describe, expect, it } from 'vitest';
import { cutPage } from './paging.ts';

describe('cutPage', () => {
  const rows = [{ id: 'c' }, { id: 'b' }, { id: 'a' }];
  const at = (last: { id: string }) => `after:${last.id}`;

  it('shows the first rows and a cursor after the last shown when more followed', () => {
    expect(cutPage(rows, 2, at)).toEqual({ rows: [{ id: 'c' }, { id: 'b' }], next: 'after:b' });
  });

  it('has no next page when the read held no row past the page', () => {
    expect(cutPage(rows, 3, at)).toEqual({ rows, next: null });
    expect(cutPage([], 3, at)).toEqual({ rows: [], next: null });
  });

  it('has no next page when the page is empty or the last row has no position', () => {
    expect(cutPage(rows, 0, at)).toEqual({ rows: [], next: null });
    expect(cutPage(rows, 1, () => null)).toEqual({ rows: [{ id: 'c' }], next: null });
  });
});
