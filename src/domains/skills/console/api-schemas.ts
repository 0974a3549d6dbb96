import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { base64Chars, base64Field, textField } from '../../../kernel/payload.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { READING_LIMITS } from '../../reading/index.ts';
import { SKILL_LIMITS } from '../limits.ts';

/** Argument and body schemas of the skills owner routes (the *-operations.ts files beside it). */

export const tags = ['skills'];
export const L = SKILL_LIMITS.list;
export const P = SKILL_LIMITS.package;
export const draftParams = z.object({ draft_id: idOf('sdr', 'skill draft') }).strict();
export const versionParams = z.object({ version_id: idOf('skv', 'skill version') }).strict();
const revision = z.number().int().min(1).describe('The draft’s current revision; an older one is refused.');
export const context = z
  .string()
  .min(2)
  .max(L.contextChars)
  .describe('The context as a JSON string, e.g. {"scope":"OWN"}.');
export const windowQuery = {
  offset: z.coerce.number().int().min(0).default(0),
  max_chars: z.coerce
    .number()
    .int()
    .min(READING_LIMITS.window.minChars)
    .max(READING_LIMITS.window.maxChars)
    .default(READING_LIMITS.window.defaultChars),
};
const skillName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase letters, digits and single hyphens, not at either end');
const description = z.string().trim().min(1).max(P.descriptionChars);
const tagList = z.array(z.string().trim().min(1).max(P.tagChars)).max(P.tags);
export const pathArg = z.string().min(1).max(L.pathChars);
/** base64 of the largest file put, with room for the rest of the JSON body. */
export const FILE_PUT_BODY_BYTES = base64Chars(P.fileBytes) + 64 * 1024;
/** base64 of the largest import, with room for padding. */
export const IMPORT_BODY_BYTES = base64Chars(P.importBytes) + 64 * 1024;

/** The named body schemas of SPEC's skills routes (their field lists are ours: docs/skills.md). */
export const SKILL_BODIES = {
  Create: z
    .object({ name: skillName, description: description.optional(), tags: tagList.optional() })
    .strict(),
  DraftUpdateBody: z
    .object({ revision, description: description.optional(), tags: tagList.optional() })
    .strict(),
  InstructionsBody: z.object({ revision, instructions: z.string().max(P.fileBytes / 2) }).strict(),
  FilePutBody: z
    .object({
      revision,
      path: pathArg,
      content: textField(P.fileBytes).optional(),
      content_base64: base64Field(P.fileBytes).optional(),
    })
    .strict()
    .refine((b) => (b.content === undefined) !== (b.content_base64 === undefined), {
      message: 'send exactly one of content or content_base64',
      path: ['content'],
    }),
  FileRemoveBody: z.object({ revision, path: pathArg }).strict(),
  ImportBody: z
    .object({
      revision,
      // A little over the import limit, so an archive just over it is named ZIP_TOO_LARGE.
      data_base64: base64Field(P.importBytes + 48 * 1024, { nonEmpty: true }),
    })
    .strict(),
  DraftRevisionBody: z.object({ revision: revision.optional() }).strict(),
  PublishBody: z.object({ revision }).strict(),
  GrantBody: z
    .object({ grantee_id: idOf('agt', 'agent'), note: z.string().trim().max(P.noteChars).optional() })
    .strict(),
  RevokeBody: z.object({ reason: z.string().trim().max(P.noteChars).optional() }).strict(),
};

/** A page of a list: a signed cursor and a limit (1-100, default 25). */
export const pageQuery = {
  cursor: z.string().min(1).max(L.cursorChars).optional(),
  limit: z.coerce.number().int().min(L.minLimit).max(L.maxLimit).default(L.defaultLimit),
};

/** `tags` as a query parameter: once or repeated, always answered as a list. */
export const tagsQuery = z
  .union([z.string().max(P.tagChars), z.array(z.string().max(P.tagChars)).max(P.tags)])
  .optional()
  .transform((t) => (t === undefined ? undefined : Array.isArray(t) ? t : [t]));

/** The query of a skill file read: a window of it, or its bytes with download=true. */
export const fileReadQuery = z
  .object({
    context,
    path: pathArg,
    ...windowQuery,
    download: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
  })
  .strict();

/** A skill file's bytes as a download: its own name, octet-stream, and its hash in a header. */
export function sendFileBytes(
  reply: FastifyReply,
  file: { path: string; sha256: string; bytes: Uint8Array },
) {
  const name = file.path.split('/').at(-1) ?? 'file';
  return reply
    .type('application/octet-stream')
    .header('content-disposition', `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`)
    .header('x-content-sha256', file.sha256)
    .send(file.bytes);
}
