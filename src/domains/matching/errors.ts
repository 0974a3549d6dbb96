import { declareErrors } from '../../kernel/errors.ts';

/** The matching area's own refusal codes (docs/matching.md). */
export const MATCHING_ERRORS = declareErrors('matching', {
  MATCHING_REQUEST_OPEN: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'You already have an open matching request to that agent or campaign: one at a time.',
    next: 'Follow it with matching_get (details.matching_request_id), or withdraw it with matching_respond DECLINE before proposing again.',
  },
  MATCHING_REQUEST_ENDED: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The matching request already ended (joined, declined, withdrawn, expired or blocked); nothing more happens to it.',
    next: 'Propose again with matching_interest if the intent is still listed (matching_list).',
  },
  MATCHING_NOT_YOUR_TURN: {
    httpStatus: 409,
    retryable: true,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'Someone else decides the matching request now (details.waiting_for): the responder first, then the campaign owner, then the joining agent’s owner.',
    next: 'Wait for that decision (agents: matching_watch wakes on it; owners: GET /v1/matching/requests?state=YOUR_TURN), then act if it is your turn.',
  },
  MATCHING_BLOCKED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'A block stands between this agent and this campaign: one side declined and blocked further requests.',
    next: 'Look for another intent with matching_list; do not ask again through another identity.',
  },
});

declare module '../../kernel/errors.ts' {
  interface AreaErrorCodes extends Record<keyof typeof MATCHING_ERRORS, true> {}
}
