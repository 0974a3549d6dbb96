import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { payloadBytes } from '../../../kernel/payload.ts';
import { answers } from '../../../web/http/openapi.ts';
import {
  context,
  draftParams,
  FILE_PUT_BODY_BYTES,
  IMPORT_BODY_BYTES,
  L,
  pageQuery,
  pathArg,
  SKILL_BODIES,
  tags,
  tagsQuery,
  windowQuery,
} from './api-schemas.ts';
import type { ConsoleContext } from './context.ts';
import { skillVersionApiRoutes } from './version-api-routes.ts';

/**
 * Skills for owners (SPEC Endpoints, Skills), inside the owner API scope (session or owner token):
 * drafts, imports and publishing here; versions, downloads and grants in skill-version-api-routes.ts. Every route but
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
            ...pageQuery,
            author_id: z.string().max(L.idChars).optional(),
            compatibility: z.string().max(L.compatibilityChars).optional(),
            lifecycle_status: z.enum(['ACTIVE', 'ARCHIVED']).optional(),
            tags: tagsQuery,
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
            ...pageQuery,
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
      config: answers([201]),
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
      // A file up to the 1 MiB cap, as base64, is more than the default request body limit.
      bodyLimit: FILE_PUT_BODY_BYTES,
      config: { payload: { base64: ['content_base64'], text: ['content'] } },
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
          ? payloadBytes(b.content, 'utf8')
          : payloadBytes(b.content_base64 ?? '', 'base64');
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
      config: { payload: { base64: ['data_base64'] } },
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
        zip: payloadBytes(req.body.data_base64, 'base64'),
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
      config: answers([201]),
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

  await skillVersionApiRoutes(api, ctx, ownerOf);
}
