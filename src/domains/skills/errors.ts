import { DomainError, declareErrors } from '../../kernel/errors.ts';

/** The skills area's own refusal codes (docs/skills.md). */
export const SKILL_ERRORS = declareErrors('skills', {
  SKILLS_DISABLED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'This deployment turned skills off (CAIRN_SKILLS=off).',
    next: 'Ask the operator to set CAIRN_SKILLS=on; GET /v1/skills/capabilities says what this deployment allows.',
  },
  SKILL_DRAFT_REVISION_STALE: {
    httpStatus: 409,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'The draft changed since the revision you sent (details.current_revision): edits need the current one.',
    next: 'Read the draft again with skill_draft_get, then repeat your edit with its revision.',
  },
  SKILL_DRAFT_INVALID: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The draft is not a valid Agent Skills package (details.problems names each violation), so it cannot be published.',
    next: 'Fix every problem with skill_draft_file_put or skill_draft_update, check with skill_draft_validate, then publish.',
  },
  SKILL_CONTEXT_DENIED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'The context you named does not give you this skill version: it is not yours or granted to you (OWN), not in that campaign’s library for you (CAMPAIGN), not attached to a task whose lease you hold (TASK), not shared to the challenge version of a live run of yours (ARENA_RUN) or of a publication of a run you took no part in (ARENA_REVIEW).',
    next: 'List what a context gives you with skill_list (same context); ask the version’s owner for a grant, or a coordinator to add it to the library.',
  },
  SKILL_BLOCKED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'The version was blocked by its owner or the operator: it is no longer delivered to anyone.',
    next: 'Use another version: skill_list shows what your context gives you; a task’s coordinator can attach a replacement.',
  },
  SKILL_BYTES_DELETED: {
    httpStatus: 410,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The version’s file bytes were deleted for privacy; its hashes and history remain.',
    next: 'Use another version of the skill.',
  },
  SKILL_ARCHIVED: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The skill is archived: its versions are still delivered where they already are, but not newly granted, proposed or attached.',
    next: 'Publish a new version from an active skill, or ask its owner to use another one.',
  },
  SKILL_READ_REQUIRED: {
    httpStatus: 409,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'The task has skills attached with delivery READ_BEFORE_COMPLETION whose SKILL.md the server has not yet delivered to you in full under this lease (details.missing).',
    next: 'Read each missing SKILL.md with skill_file_get (context {"scope":"TASK","task_id":…}) following range.next_offset to the end, then call task_complete again.',
  },
  SKILL_FILE_BINARY: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The file is not UTF-8 text, so it has no character windows.',
    next: 'Read it with skill_file_bytes_get (base64 windows), or download the package.',
  },
  SKILL_NOT_USED_IN_RUN: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'arena_skill_share shares a version used in the run: the server delivered none of its files to you between your start of that run and its end.',
    next: 'Share a version you read during the run (skill_file_get or skill_package_get while it went on), or let your owner share it with POST /v1/arena/skill-packages.',
  },
});

declare module '../../kernel/errors.ts' {
  interface AreaErrorCodes extends Record<keyof typeof SKILL_ERRORS, true> {}
}

/** The owner's version that is missing or another owner's: one wording for both. */
export function versionNotFound(versionId: string): DomainError {
  return new DomainError('NOT_FOUND', `No skill version ${versionId} you may see.`, {
    version_id: versionId,
  });
}

export function draftNotFound(draftId: string): DomainError {
  return new DomainError('NOT_FOUND', `No skill draft ${draftId} of yours.`, { draft_id: draftId });
}

export function staleRevision(draftId: string, sent: number, current: number): DomainError {
  return new DomainError(
    'SKILL_DRAFT_REVISION_STALE',
    `Draft ${draftId} is at revision ${current}, not ${sent}; nothing was changed.`,
    { draft_id: draftId, sent_revision: sent, current_revision: current },
    {
      next: `Read it with skill_draft_get(draft_id: "${draftId}") and repeat the edit with revision ${current}.`,
      alternatives: [{ tool: 'skill_draft_get', action: 'Read the current draft and its revision.' }],
    },
  );
}

/** A lease_id that names no lease of the task. */
export function leaseNotOfTask(taskId: string, leaseId: string): DomainError {
  return new DomainError('NOT_FOUND', `Task ${taskId} has no lease ${leaseId}.`, {
    task_id: taskId,
    lease_id: leaseId,
  });
}
