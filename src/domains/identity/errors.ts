import { declareErrors } from '../../kernel/errors.ts';

/** The identity area's own refusal codes; the general ones (NOT_FOUND, CONFLICT, …) are the kernel's. */
export const IDENTITY_ERRORS = declareErrors('identity', {
  SIGNUP_CLOSED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'Console sign-up is closed: an owner already exists and the operator has not set CAIRN_OPEN_SIGNUP=true.',
    next: 'Ask the operator or an existing owner; sign in if you already have an account.',
  },
  SIGNIN_FAILED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The console sign-in email or password is wrong. The refusal is the same for both, so it does not tell whether an account exists.',
    next: 'Check the email and password and try again; repeated failures lock sign-in for a while.',
  },
  SIGNIN_THROTTLED: {
    httpStatus: 429,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'Too many failed console sign-ins for this account or from this address in the last 15 minutes.',
    next: 'Wait details.retry_after_seconds (also the Retry-After header) and sign in again.',
  },
  CONSOLE_SESSION_REQUIRED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'An owner API token (cd_own_) was used for what only a signed-in console session may do: making owner tokens, so a stolen token cannot keep itself alive.',
    next: 'Sign in to the console and make the token there (or POST /v1/owner/tokens with the session), or ask the operator for `cairn owner token add`.',
  },
});

declare module '../../kernel/errors.ts' {
  interface AreaErrorCodes extends Record<keyof typeof IDENTITY_ERRORS, true> {}
}
