import { describe, expect, it } from 'vitest';
import { ParseRefusal } from '../../parsing/types.ts';
import './errors.ts';
import { refusalOf } from './refusals.ts';

describe('refusalOf', () => {
  it('answers a document too costly to parse as DOCUMENT_TOO_COMPLEX (422), not as a size limit (issue 40)', () => {
    const refusal = refusalOf(
      new ParseRefusal('PARSE_TIMEOUT', 'Parsing took longer than 10000 ms.', { timeout_ms: 10_000 }),
    );
    expect(refusal).toMatchObject({
      code: 'DOCUMENT_TOO_COMPLEX',
      details: { reason: 'PARSE_TIMEOUT', timeout_ms: 10_000 },
    });
    const big = refusalOf(new ParseRefusal('TOO_MANY_PAGES', 'Too many pages.', {}));
    expect(big?.code).toBe('CONTENT_TOO_LARGE');
  });
});
