import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LIMITS } from '../../kernel/limits.ts';
import type { ConsoleContext } from './context.ts';
import { idOf } from './id-params.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route also takes a download ticket in place of a session (see the owner API hook). */
    ticketAuth?: boolean;
    /** The route also takes an agent's own MCP bearer (see the owner API hook). */
    agentAuth?: boolean;
  }
}

const tags = ['skills'];
const L = LIMITS.skillsList;
const P = LIMITS.skillPackage;
const draftParams = z.object({ draft_id: idOf('sdr', 'skill draft') }).strict();
const versionParams = z.object({ version_id: idOf('skv', 'skill version') }).strict();
const revision = z.number().int().min(1).describe('The draft’s current revision; an older one is refused.');
const context = z
  .string()
  .min(2)
  .max(L.contextChars)
  .describe('The context as a JSON string, e.g. {"scope":"OWN"}.');
const windowQuery = {
  offset: z.coerce.number().int().min(0).default(0),
  max_chars: z.coerce
    .number()
    .int()
    .min(LIMITS.readWindow.minChars)
    .max(LIMITS.readWindow.maxChars)
    .default(LIMITS.readWindow.defaultChars),
};
const skillName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase letters, digits and single hyphens, not at either end');
const description = z.string().trim().min(1).max(P.descriptionChars);
const tagList = z.array(z.string().trim().min(1).max(P.tagChars)).max(P.tags);
const pathArg = z.string().min(1).max(L.pathChars);
/** base64 of the largest import, with room for padding. */
const IMPORT_BODY_BYTES = Math.ceil(P.importBytes / 3) * 4 + 64 * 1024;

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
      content: z.string().max(P.fileBytes).optional(),
      content_base64: z
        .string()
        .max(Math.ceil(P.fileBytes / 3) * 4)
        .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'standard base64')
        .optional(),
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
      data_base64: z
        .string()
        .min(4)
        .max(IMPORT_BODY_BYTES)
        .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'standard base64'),
    })
    .strict(),
  DraftRevisionBody: z.object({ revision: revision.optional() }).strict(),
  PublishBody: z.object({ revision }).strict(),
  GrantBody: z
    .object({ grantee_id: idOf('agt', 'agent'), note: z.string().trim().max(P.noteChars).optional() })
    .strict(),
  RevokeBody: z.object({ reason: z.string().trim().max(P.noteChars).optional() }).strict(),
};

/**
 * Skills for owners (SPEC Endpoints, Skills), inside the owner API scope (session or owner token):
 * drafts, imports, publishing, versions under a context, downloads and grants. Every route but
 * capabilities answers SKILLS_DISABLED when the deployment has skills off. The download also
 * takes the ticket of an identity's download_url (skill_package_get) instead of a session.
 */
export async function skillApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();
  const s = ctx.skills;

  r.get(
    '/v1/skills/capabilities',
    {
      schema: {
        tags,
        summary: 'What this deployment allows for skills: on or off, formats, contexts, limits',
      },
    },
    async () => s.capabilities(),
  );

  r.get(
    '/v1/skills',
    {
      schema: {
        tags,
        summary: 'Skill versions a context gives you (default your own), newest first',
        querystring: z
          .object({
            context: context.optional(),
            q: z.string().trim().max(L.qChars).optional(),
            status: z.enum(['AVAILABLE', 'BLOCKED']).optional(),
            cursor: z.string().min(1).max(L.cursorChars).optional(),
            author_id: z.string().max(L.idChars).optional(),
            compatibility: z.string().max(L.compatibilityChars).optional(),
            lifecycle_status: z.enum(['ACTIVE', 'ARCHIVED']).optional(),
            tags: z
              .union([z.string().max(P.tagChars), z.array(z.string().max(P.tagChars)).max(P.tags)])
              .optional()
              .transform((t) => (t === undefined ? undefined : Array.isArray(t) ? t : [t])),
            limit: z.coerce.number().int().min(L.minLimit).max(L.maxLimit).default(L.defaultLimit),
          })
          .strict(),
      },
    },
    async (req) => {
      const q = req.query;
      return s.list(ownerOf(req), q.context, {
        q: q.q,
        status: q.status,
        authorId: q.author_id,
        compatibility: q.compatibility,
        lifecycleStatus: q.lifecycle_status,
        tags: q.tags,
        limit: q.limit,
        cursor: q.cursor,
      });
    },
  );

  r.get(
    '/v1/skills/drafts',
    {
      schema: {
        tags,
        summary: 'Your account’s drafts, newest first',
        querystring: z
          .object({
            cursor: z.string().min(1).max(L.cursorChars).optional(),
            limit: z.coerce.number().int().min(L.minLimit).max(L.maxLimit).default(L.defaultLimit),
            q: z.string().trim().max(L.qChars).optional(),
          })
          .strict(),
      },
    },
    async (req) => s.listDrafts(ownerOf(req), req.query),
  );

  r.post(
    '/v1/skills/drafts',
    {
      schema: {
        tags,
        summary: 'Start a draft (SKILL.md begins with name and description)',
        body: SKILL_BODIES.Create,
      },
    },
    async (req, reply) => reply.code(201).send(await s.createDraft(ownerOf(req), req.body)),
  );

  r.get(
    '/v1/skills/drafts/:draft_id',
    { schema: { tags, summary: 'A draft with its files, revision and validity', params: draftParams } },
    async (req) => s.getDraft(ownerOf(req), req.params.draft_id),
  );

  r.patch(
    '/v1/skills/drafts/:draft_id',
    {
      schema: {
        tags,
        summary: 'Change a draft’s description or tags',
        params: draftParams,
        body: SKILL_BODIES.DraftUpdateBody,
      },
    },
    async (req) => s.editDraft(ownerOf(req), req.params.draft_id, { kind: 'update', ...req.body }),
  );

  r.get(
    '/v1/skills/drafts/:draft_id/file',
    {
      schema: {
        tags,
        summary: 'One window of a draft’s file',
        params: draftParams,
        querystring: z.object({ path: pathArg, ...windowQuery }).strict(),
      },
    },
    async (req) => s.draftFile(ownerOf(req), req.params.draft_id, req.query),
  );

  r.put(
    '/v1/skills/drafts/:draft_id/instructions',
    {
      schema: {
        tags,
        summary: 'Replace SKILL.md’s body (the instructions); the frontmatter stays',
        params: draftParams,
        body: SKILL_BODIES.InstructionsBody,
      },
    },
    async (req) =>
      s.editDraft(ownerOf(req), req.params.draft_id, {
        kind: 'update',
        revision: req.body.revision,
        instructions: req.body.instructions,
      }),
  );

  r.put(
    '/v1/skills/drafts/:draft_id/files',
    {
      schema: {
        tags,
        summary: 'Add or replace one file',
        params: draftParams,
        body: SKILL_BODIES.FilePutBody,
      },
    },
    async (req) => {
      const b = req.body;
      const bytes =
        b.content !== undefined
          ? Buffer.from(b.content, 'utf8')
          : Buffer.from(b.content_base64 ?? '', 'base64');
      return s.editDraft(ownerOf(req), req.params.draft_id, {
        kind: 'put',
        revision: b.revision,
        path: b.path,
        bytes,
      });
    },
  );

  r.delete(
    '/v1/skills/drafts/:draft_id/files',
    { schema: { tags, summary: 'Remove one file', params: draftParams, body: SKILL_BODIES.FileRemoveBody } },
    async (req) => s.editDraft(ownerOf(req), req.params.draft_id, { kind: 'remove', ...req.body }),
  );

  r.post(
    '/v1/skills/drafts/:draft_id/imports',
    {
      bodyLimit: IMPORT_BODY_BYTES + 1024,
      schema: {
        tags,
        summary: 'Replace the draft’s files with a zip (base64); refused whole if any entry is unsafe',
        params: draftParams,
        body: SKILL_BODIES.ImportBody,
      },
    },
    async (req) =>
      s.editDraft(ownerOf(req), req.params.draft_id, {
        kind: 'import',
        revision: req.body.revision,
        zip: Buffer.from(req.body.data_base64, 'base64'),
      }),
  );

  r.post(
    '/v1/skills/drafts/:draft_id/validate',
    {
      schema: {
        tags,
        summary: 'Every violation of the Agent Skills format',
        params: draftParams,
        body: SKILL_BODIES.DraftRevisionBody,
      },
    },
    async (req) => s.validate(ownerOf(req), req.params.draft_id, req.body.revision),
  );

  r.post(
    '/v1/skills/drafts/:draft_id/publish',
    {
      schema: {
        tags,
        summary: 'Publish the draft as an immutable private version',
        params: draftParams,
        body: SKILL_BODIES.PublishBody,
      },
    },
    async (req, reply) =>
      reply.code(201).send(await s.publish(ownerOf(req), req.params.draft_id, req.body.revision)),
  );

  r.get(
    '/v1/skills/versions/:version_id',
    {
      schema: {
        tags,
        summary: 'One version under a context',
        params: versionParams,
        querystring: z.object({ context }).strict(),
      },
    },
    async (req) => s.getVersion(ownerOf(req), req.params.version_id, req.query.context),
  );

  r.get(
    '/v1/skills/versions/:version_id/file',
    {
      schema: {
        tags,
        summary: 'One window of a version’s file, or its bytes with download=true',
        params: versionParams,
        querystring: z
          .object({
            context,
            path: pathArg,
            ...windowQuery,
            download: z
              .enum(['true', 'false'])
              .default('false')
              .transform((v) => v === 'true'),
          })
          .strict(),
      },
    },
    async (req, reply) => {
      const q = req.query;
      if (!q.download) return s.versionFile(ownerOf(req), req.params.version_id, q);
      const file = await s.versionFileBytes(ownerOf(req), req.params.version_id, q);
      const name = file.path.split('/').at(-1) ?? 'file';
      return reply
        .type('application/octet-stream')
        .header('content-disposition', `attachment; filename="${name.replace(/[^\w.-]/g, '_')}"`)
        .header('x-content-sha256', file.sha256)
        .send(file.bytes);
    },
  );

  r.get(
    '/v1/skills/versions/:version_id/download',
    {
      config: { ticketAuth: true },
      schema: {
        tags,
        summary: 'The version as one deterministic zip (same version, same bytes and package_sha256)',
        params: versionParams,
        querystring: z.object({ context, ticket: z.string().min(1).max(L.cursorChars).optional() }).strict(),
      },
    },
    async (req, reply) => {
      const { ticket } = req.query;
      const who = req.owner ? { ownerId: req.owner.id } : { ticket: ticket ?? '' };
      const pkg = await s.download(who, req.params.version_id, req.query.context);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${pkg.filename}"`)
        .header('x-content-sha256', pkg.sha256)
        .send(Buffer.from(pkg.zip));
    },
  );

  r.post(
    '/v1/skills/versions/:version_id/grants',
    {
      schema: {
        tags,
        summary: 'Let one identity read this version (context OWN) until you revoke it',
        params: versionParams,
        body: SKILL_BODIES.GrantBody,
      },
    },
    async (req, reply) => {
      const grant = await ctx.skillGrants.grant(ownerOf(req), req.params.version_id, req.body);
      return reply.code(grant.created ? 201 : 200).send(grant);
    },
  );

  r.get(
    '/v1/skills/versions/:version_id/grants',
    {
      schema: {
        tags,
        summary: 'The version’s grants, newest first',
        params: versionParams,
        querystring: z
          .object({
            cursor: z.string().min(1).max(L.cursorChars).optional(),
            limit: z.coerce.number().int().min(L.minLimit).max(L.maxLimit).default(L.defaultLimit),
          })
          .strict(),
      },
    },
    async (req) => ctx.skillGrants.list(ownerOf(req), req.params.version_id, req.query),
  );

  r.post(
    '/v1/skill-grants/:grant_id/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke a grant: the identity’s next read is refused',
        params: z.object({ grant_id: idOf('sgr', 'skill grant') }).strict(),
        body: SKILL_BODIES.RevokeBody,
      },
    },
    async (req) => ctx.skillGrants.revoke(ownerOf(req), req.params.grant_id, req.body.reason),
  );
}
