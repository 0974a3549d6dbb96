import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { payloadBytes } from '../../../kernel/payload.ts';
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
import type { SkillDoorServices } from './context.ts';

const op = defineOwnerOperation<SkillDoorServices>();

/**
 * Skills for owners (SPEC Endpoints, Skills), inside the owner API scope (session or owner token):
 * drafts, imports and publishing here; versions, downloads and grants in version-operations.ts. Every route but
 * capabilities answers SKILLS_DISABLED when the deployment has skills off. The download also
 * takes the ticket of an identity's download_url (skill_package_get) instead of a session.
 */
export const skillOperations = [
  op({
    method: 'GET',
    path: '/v1/skills/capabilities',
    tags,
    summary: 'What this deployment allows for skills: on or off, formats, contexts, limits',
    run: async (ctx, _input) => ctx.skills.capabilities(),
  }),
  op({
    method: 'GET',
    path: '/v1/skills',
    tags,
    summary: 'Skill versions a context gives you (default your own), newest first',
    query: z
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
    run: async (ctx, { ownerId, query }) => {
      const q = query;
      return ctx.skills.list(ownerId, q.context, {
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
  }),
  op({
    method: 'GET',
    path: '/v1/skills/drafts',
    tags,
    summary: 'Your account’s drafts, newest first',
    query: z
      .object({
        ...pageQuery,
        q: z.string().trim().max(L.qChars).optional(),
      })
      .strict(),
    run: async (ctx, { ownerId, query }) => ctx.skills.listDrafts(ownerId, query),
  }),
  op({
    method: 'GET',
    path: '/v1/skills/drafts/:draft_id',
    tags,
    summary: 'A draft with its files, revision and validity',
    params: draftParams,
    run: async (ctx, { ownerId, params }) => ctx.skills.getDraft(ownerId, params.draft_id),
  }),
  op({
    method: 'PATCH',
    path: '/v1/skills/drafts/:draft_id',
    tags,
    summary: 'Change a draft’s description or tags',
    params: draftParams,
    body: SKILL_BODIES.DraftUpdateBody,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skills.editDraft(ownerId, params.draft_id, { kind: 'update', ...body }),
  }),
  op({
    method: 'GET',
    path: '/v1/skills/drafts/:draft_id/file',
    tags,
    summary: 'One window of a draft’s file',
    params: draftParams,
    query: z.object({ path: pathArg, ...windowQuery }).strict(),
    run: async (ctx, { ownerId, params, query }) => ctx.skills.draftFile(ownerId, params.draft_id, query),
  }),
  op({
    method: 'PUT',
    path: '/v1/skills/drafts/:draft_id/instructions',
    tags,
    summary: 'Replace SKILL.md’s body (the instructions); the frontmatter stays',
    params: draftParams,
    body: SKILL_BODIES.InstructionsBody,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skills.editDraft(ownerId, params.draft_id, {
        kind: 'update',
        revision: body.revision,
        instructions: body.instructions,
      }),
  }),
  op({
    method: 'DELETE',
    path: '/v1/skills/drafts/:draft_id/files',
    tags,
    summary: 'Remove one file',
    params: draftParams,
    body: SKILL_BODIES.FileRemoveBody,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skills.editDraft(ownerId, params.draft_id, { kind: 'remove', ...body }),
  }),
  op({
    method: 'POST',
    path: '/v1/skills/drafts/:draft_id/validate',
    tags,
    summary: 'Every violation of the Agent Skills format',
    params: draftParams,
    body: SKILL_BODIES.DraftRevisionBody,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skills.validate(ownerId, params.draft_id, body.revision),
  }),
  op({
    method: 'POST',
    path: '/v1/skills/drafts',
    tags,
    summary: 'Start a draft (SKILL.md begins with name and description)',
    body: SKILL_BODIES.Create,
    status: 201,
    run: async (ctx, { ownerId, body }) => await ctx.skills.createDraft(ownerId, body),
  }),
  op({
    method: 'POST',
    path: '/v1/skills/drafts/:draft_id/publish',
    tags,
    summary: 'Publish the draft as an immutable private version',
    params: draftParams,
    body: SKILL_BODIES.PublishBody,
    status: 201,
    run: async (ctx, { ownerId, params, body }) =>
      await ctx.skills.publish(ownerId, params.draft_id, body.revision),
  }),
  op({
    method: 'PUT',
    path: '/v1/skills/drafts/:draft_id/files',
    tags,
    summary: 'Add or replace one file',
    params: draftParams,
    body: SKILL_BODIES.FilePutBody,
    payload: { base64: ['content_base64'], text: ['content'] },
    bodyLimit: FILE_PUT_BODY_BYTES,
    run: async (ctx, { ownerId, params, body }) => {
      const b = body;
      const bytes =
        b.content !== undefined
          ? payloadBytes(b.content, 'utf8')
          : payloadBytes(b.content_base64 ?? '', 'base64');
      return ctx.skills.editDraft(ownerId, params.draft_id, {
        kind: 'put',
        revision: b.revision,
        path: b.path,
        bytes,
      });
    },
  }),
  op({
    method: 'POST',
    path: '/v1/skills/drafts/:draft_id/imports',
    tags,
    summary: 'Replace the draft’s files with a zip (base64); refused whole if any entry is unsafe',
    params: draftParams,
    body: SKILL_BODIES.ImportBody,
    payload: { base64: ['data_base64'] },
    bodyLimit: IMPORT_BODY_BYTES + 1024,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skills.editDraft(ownerId, params.draft_id, {
        kind: 'import',
        revision: body.revision,
        zip: payloadBytes(body.data_base64, 'base64'),
      }),
  }),
];
