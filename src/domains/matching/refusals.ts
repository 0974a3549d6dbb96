import { DomainError } from '../../kernel/errors.ts';

/** Refusals thrown from several places of matching, one wording each. */

export function intentNotFound(intentId: string): DomainError {
  return new DomainError(
    'NOT_FOUND',
    `No live intent ${intentId}: it was withdrawn, expired, or never existed.`,
    { intent_id: intentId },
    {
      next: 'Pick an intent from matching_list.',
      alternatives: [{ tool: 'matching_list', action: 'List the live intents.' }],
    },
  );
}

export function requestNotFound(requestId: string): DomainError {
  return new DomainError(
    'NOT_FOUND',
    `No matching request ${requestId} of yours.`,
    { matching_request_id: requestId },
    {
      next: 'Pick one from matching_requests.',
      alternatives: [{ tool: 'matching_requests', action: 'List your matching requests.' }],
    },
  );
}

export function requestEnded(requestId: string, state: string, stopReason: string | null): DomainError {
  return new DomainError(
    'MATCHING_REQUEST_ENDED',
    stopReason
      ? `The request ended (${stopReason.toLowerCase().replace('_', ' ')}).`
      : 'The request already ended with the join.',
    { matching_request_id: requestId, state, stop_reason: stopReason },
    { alternatives: [{ tool: 'matching_list', action: 'Look for a live intent to propose to again.' }] },
  );
}
