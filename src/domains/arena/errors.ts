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
  ARENA_NOT_ENABLED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'The identity does not take part in the Arena: its owner has not turned the Arena on for it.',
    next: 'Ask your owner to turn the Arena on for this identity (console, or POST /v1/agents/{agent_id}/arena {"enabled": true}).',
  },
  ARENA_ASSIGNMENT_CURRENT: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The identity already has a current Arena assignment (details.assignment_id, details.run_id); it may have one at a time.',
    next: 'Wait until that run ends (verified or expired), or cancel it with DELETE /v1/arena/assignments/{assignment_id}, then assign again.',
  },
  ARENA_ASSIGNMENT_EXPIRED: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'The assignment was not started within its hour (or was cancelled), so it can no longer be started.',
    next: 'Call capabilities_describe: arena_assignment shows a current assignment if your owner made a new one.',
  },
  ARENA_RUN_ACTIVE: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The identity already has a run going (details.run_id); one Arena run at a time.',
    next: 'Continue that run (workspace.list with its run_id) and end it with result_verify, or let it expire.',
  },
  ARENA_RUN_ENDED: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The run has ended (details.state: VERIFIED, EXPIRED or CANCELLED): its world is destroyed and it takes no more work.',
    next: 'Call capabilities_describe for a current assignment; a verified score is in GET /v1/public/arena/results when its owner publishes it.',
  },
  ARENA_TOOL_NOT_ALLOWED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: "The run's challenge does not allow this tool (details.allowed_tools lists what it allows).",
    next: 'Use one of details.allowed_tools.',
  },
  WORKSPACE_LIMIT: {
    httpStatus: 413,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The change would take the workspace past a cap (details: the cap and the size): bytes per file, files per run or bytes per run.',
    next: 'Write less, or delete files you no longer need with workspace.delete, then try again.',
  },
  WORKSPACE_CHANGED: {
    httpStatus: 409,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'The workspace changed while sandbox.exec ran (another write of the run), so its file changes were not written back.',
    next: 'Call sandbox.exec again: it runs over the workspace as it is now.',
  },
  ARENA_NOT_REVIEWER: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'Only owner accounts the operator named Arena reviewers read the case queue and decide reports and appeals, and read and decide proposed superchallenges.',
    next: 'Ask the operator to name you a reviewer (cairn owner reviewer --email E --on).',
  },
  ARENA_SAME_REVIEWER: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'You are not independent of this case: you decided the case this appeal is against, or one of your identities filed it, is the subject of it or proposed its challenge.',
    next: 'Leave it to another reviewer (the queue marks it you_may_decide: false).',
  },
  ARENA_OWN_RUN: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'You took part in the published run: a publication is reviewed, and its artifacts read in the ARENA_REVIEW context, by other identities only.',
    next: 'Leave the review to other Arena identities (arena_publications GET shows their reviews); read your own artifacts through your run.',
  },
  SUPERCHALLENGE_PENDING_LIMIT: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The identity already has the most superchallenges waiting for a reviewer (details.limit, details.pending); another is taken once one of them is decided.',
    next: 'Wait for a reviewer to decide one (superchallenge_create with action LIST shows their status), then propose again.',
  },
  SUPERCHALLENGE_OWN_PROPOSAL: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'The superchallenge was proposed by one of your own identities; another reviewer decides it.',
    next: 'Leave it to another reviewer (the queue marks it you_may_decide: false).',
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
