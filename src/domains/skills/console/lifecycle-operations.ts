import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { SKILL_LIMITS } from '../limits.ts';
import { L, pageQuery, tags, versionParams } from './api-schemas.ts';
import type { SkillDoorServices } from './context.ts';

const reason = z.string().trim().min(1).max(SKILL_LIMITS.package.noteChars);
const pageQueryObject = z.object(pageQuery).strict();

/** The named body schemas of the lifecycle routes (their field lists are ours: docs/skills.md). */
export const SKILL_LIFECYCLE_BODIES = {
  ArchiveBody: z
    .object({
      reason: reason.optional(),
      unarchive: z.boolean().optional().describe('true makes an archived skill active again.'),
    })
    .strict(),
  BlockBody: z
    .object({
      reason: reason.optional().describe('Why it is blocked: required to block.'),
      unblock: z
        .boolean()
        .optional()
        .describe('true lifts the block (an operator’s block only by an operator).'),
    })
    .strict()
    .refine((b) => b.unblock === true || b.reason !== undefined, {
      message: 'a reason is required to block',
      path: ['reason'],
    }),
  PrivacyBytesBody: z
    .object({
      confirm: z.literal(true).describe('Must be true: the deletion cannot be undone.'),
      reason: reason.optional(),
    })
    .strict(),
};

const op = defineOwnerOperation<SkillDoorServices>();

/**
 * The lifecycle of the owner's skills (SPEC Endpoints, Skills; docs/skills.md): archive, block
 * (by the owner or an operator), privacy byte deletion, the version's history, activity and
 * usage pages, diffs between two versions, and the distribution consents.
 */
export const skillLifecycleOperations = [
  op({
    method: 'POST',
    path: '/v1/skills/:skill_id/archive',
    tags,
    summary: 'Archive a skill (its versions stay where they are, but are not newly shared), or unarchive it',
    params: z.object({ skill_id: idOf('skl', 'skill') }).strict(),
    body: SKILL_LIFECYCLE_BODIES.ArchiveBody,
    run: async (ctx, { ownerId, params, body }) => ctx.skillLifecycle.archive(ownerId, params.skill_id, body),
  }),
  op({
    method: 'POST',
    path: '/v1/skills/versions/:version_id/block',
    tags,
    summary:
      'Block a version (delivered to no one but its owner), or lift the block; operators may block any version',
    params: versionParams,
    body: SKILL_LIFECYCLE_BODIES.BlockBody,
    run: async (ctx, { ownerId, params, body }) => {
      const me = ownerId;
      return ctx.skillLifecycle.block(me, await ctx.operators.isOperator(me), params.version_id, body);
    },
  }),
  op({
    method: 'POST',
    path: '/v1/skills/versions/:version_id/privacy-byte-deletion',
    tags,
    summary: 'Delete the version’s file bytes for good; hashes and history stay',
    params: versionParams,
    body: SKILL_LIFECYCLE_BODIES.PrivacyBytesBody,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skillLifecycle.deleteBytes(ownerId, params.version_id, body.reason),
  }),
  op({
    method: 'GET',
    path: '/v1/skills/versions/:version_id/history',
    tags,
    summary: 'The versions of this version’s skill, newest first',
    params: versionParams,
    query: pageQueryObject,
    run: async (ctx, { ownerId, params, query }) =>
      ctx.skillHistory.history(ownerId, params.version_id, query),
  }),
  op({
    method: 'GET',
    path: '/v1/skills/versions/:version_id/activity',
    tags,
    summary: 'What happened to this version and its skill, newest first',
    params: versionParams,
    query: pageQueryObject,
    run: async (ctx, { ownerId, params, query }) =>
      ctx.skillHistory.activity(ownerId, params.version_id, query),
  }),
  op({
    method: 'GET',
    path: '/v1/skills/versions/:version_id/usage',
    tags,
    summary: 'What workers reported of this version, newest first',
    params: versionParams,
    query: pageQueryObject,
    run: async (ctx, { ownerId, params, query }) => ctx.skillHistory.usage(ownerId, params.version_id, query),
  }),
  op({
    method: 'GET',
    path: '/v1/skills/versions/:version_id/diff',
    tags,
    summary: 'Unified diff from other_version_id (-) to this version (+), of one path or every file',
    params: versionParams,
    query: z
      .object({
        other_version_id: z.string().max(L.idChars).pipe(idOf('skv', 'skill version')),
        path: z.string().min(1).max(L.pathChars).optional(),
      })
      .strict(),
    run: async (ctx, { ownerId, params, query }) => ctx.skillHistory.diff(ownerId, params.version_id, query),
  }),
  op({
    method: 'GET',
    path: '/v1/skills/distribution-consents',
    tags,
    summary:
      'Every live place your versions are shared (grants, campaign libraries, task attachments, Arena packages), newest first',
    query: pageQueryObject,
    run: async (ctx, { ownerId, query }) => ctx.skillHistory.consents(ownerId, query),
  }),
];
