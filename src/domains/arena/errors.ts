import { DomainError, declareErrors } from '../../kernel/errors.ts';

/** The arena area's own refusal codes. */
export const ARENA_ERRORS = declareErrors('arena', {
  SCORE_SIGNATURE_INVALID: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'A signed score does not verify: it is not a compact JWS of a Cairn score, no published key has its kid, or the payload or signature was changed after signing.',
    next: 'Check the score against the JWKS of the Cairn that issued it (/.well-known/jwks.json); a score that does not verify must not be trusted.',
  },
});

declare module '../../kernel/errors.ts' {
  interface AreaErrorCodes extends Record<keyof typeof ARENA_ERRORS, true> {}
}

/** A signed score that does not verify, with the reason in words. */
export function scoreSignatureInvalid(reason: string): DomainError {
  return new DomainError('SCORE_SIGNATURE_INVALID', `The signed score does not verify: ${reason}`, {
    reason,
  });
}
