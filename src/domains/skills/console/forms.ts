import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import { line } from '../../../web/console/fields.ts';
import { idOf, idPattern } from '../../../web/console/id-params.ts';
import { READING_LIMITS } from '../../reading/index.ts';
import { SKILL_LIMITS } from '../limits.ts';

/**
 * The skills forms of the console (docs/skills.md), bounded like the owner API's bodies
 * (owner-operations.ts, lifecycle-operations.ts); messages are written for the person who
 * filled the form in. The service checks everything again (the package rules, revisions, who may
 * do what), so these only turn form strings into its typed input.
 */

const P = SKILL_LIMITS.package;
const csrf = z.string().max(200).optional();

export const DRAFT_ID = idOf('sdr', 'skill draft');
export const VERSION_ID = idOf('skv', 'skill version');
export const GRANT_ID = idOf('sgr', 'skill grant');

/** A body field of up to `max` characters; blank is absent. */
const optionalText = (what: string, max: number) =>
  z
    .string()
    .max(max, `${what} must be at most ${max} characters.`)
    .optional()
    .transform((s) => {
      const t = s?.replace(/\r\n?/g, '\n').trim();
      return t ? t : undefined;
    });

const revision = z
  .string({ message: 'The form lost its revision: reload the page and try again.' })
  .regex(/^\d{1,9}$/, 'The form lost its revision: reload the page and try again.')
  .transform(Number)
  .pipe(z.number().int().min(1, 'The form lost its revision: reload the page and try again.'));

const NAME_RULE = 'A skill name is 1 to 64 lowercase letters, digits and single hyphens, not at either end.';

/** Start a draft: SKILL.md begins with its name and description. */
export const newDraftForm = z
  .object({
    csrf,
    name: z
      .string({ message: 'Enter a name.' })
      .trim()
      .min(1, 'Enter a name.')
      .max(64, NAME_RULE)
      .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, NAME_RULE),
    description: optionalText('The description', P.descriptionChars),
  })
  .strict();

/** The whole SKILL.md from the editor, with a browser's CRLF line breaks as plain LF. */
export const skillMdForm = z
  .object({
    csrf,
    revision,
    content: z
      .string({ message: 'The SKILL.md text is missing.' })
      .max(P.fileBytes, `SKILL.md must be at most ${P.fileBytes} bytes.`)
      .transform((s) => s.replace(/\r\n?/g, '\n')),
  })
  .strict();

export const publishForm = z.object({ csrf, revision }).strict();

export const grantForm = z
  .object({
    csrf,
    grantee_id: z
      .string({ message: 'Enter the identity’s id (agt_…).' })
      .trim()
      .regex(idPattern('agt'), 'Enter the identity’s id: it starts with agt_.'),
    note: optionalText('The note', P.noteChars),
  })
  .strict();

/** Revoke, Unblock, Unarchive: an optional reason. */
export const reasonForm = z.object({ csrf, reason: optionalText('The reason', P.noteChars) }).strict();

export const blockForm = z.object({ csrf, reason: line('a reason for the block', P.noteChars) }).strict();

export const deleteBytesForm = z
  .object({
    csrf,
    confirm: z.literal(
      'yes',
      'Tick the box to confirm that the file bytes of this version should be deleted for good.',
    ),
    reason: optionalText('The reason', P.noteChars),
  })
  .strict();

/* What the skills routes read from a request, and the words they answer with. */

export const hidden = { schema: { hide: true } };
export const PAGE = 25;
export const OWN = JSON.stringify({ scope: 'OWN' });
export const WINDOW = READING_LIMITS.window.maxChars;
/** A whole SKILL.md, percent-encoded (each byte at most three characters), with the form around it. */
export const SKILL_MD_BODY = 3 * SKILL_LIMITS.package.fileBytes + 64 * 1024;

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  created: 'Draft started. Edit SKILL.md below, then publish it.',
  saved: 'SKILL.md saved.',
  published: 'Published: this version is immutable and private until you grant or share it.',
  granted: 'Granted: the identity reads this version under context {"scope":"OWN"} until you revoke it.',
  regranted: 'That identity already holds a grant of this version; it stands as it was.',
  revoked: 'Revoked: the identity’s next read of this version is refused.',
  blocked: 'Blocked: this version is delivered to no one but you and its author.',
  unblocked: 'Unblocked: this version is delivered again wherever a context gives it.',
  archived:
    'Archived: the skill’s versions are no longer newly granted, proposed, attached or published from.',
  unarchived: 'Unarchived: the skill is active again.',
  deleted: 'The file bytes of this version were deleted for good; its hashes and history remain.',
  unchanged: 'Nothing changed: it already was so.',
};

/** The next move after a refusal, in words for the person at the console (the message says what). */
const NEXT_MOVE: Record<string, string> = {
  SKILL_DRAFT_REVISION_STALE:
    'The page now shows the draft as it is; anything you typed is kept under “Your unsaved text” to copy from.',
  SKILL_DRAFT_INVALID: 'Fix the problems listed under Validation, then publish again.',
  SKILL_ARCHIVED: 'Unarchive the skill first (under its lifecycle on this page).',
};

type Query = Record<string, unknown>;
export const queryOf = (req: FastifyRequest) => (req.query ?? {}) as Query;
export const doneOf = (req: FastifyRequest) => DONE[String(queryOf(req).done ?? '')];
export const cursorOf = (value: unknown) =>
  typeof value === 'string' && value.length > 0 && value.length <= SKILL_LIMITS.list.cursorChars
    ? value
    : undefined;

/** A path id of the expected kind; anything else is the console's not-found page. */
export function idParam(req: FastifyRequest, name: string, schema: z.ZodType<string>, what: string): string {
  const parsed = schema.safeParse((req.params as Record<string, unknown>)[name]);
  if (!parsed.success) throw new DomainError('NOT_FOUND', `No such ${what}.`);
  return parsed.data;
}
export const draftIdOf = (req: FastifyRequest) => idParam(req, 'draft_id', DRAFT_ID, 'skill draft');
export const versionIdOf = (req: FastifyRequest) => idParam(req, 'version_id', VERSION_ID, 'skill version');

/** A refusal worth showing on the page (a missing draft or version is the not-found page instead). */
export function refusal(err: unknown): { status: number; message: string } {
  if (!(err instanceof DomainError)) throw err;
  const next = NEXT_MOVE[err.code];
  return { status: httpStatusOf(err.code), message: next ? `${err.message} ${next}` : err.message };
}
