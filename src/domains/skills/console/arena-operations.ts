import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { context, fileReadQuery, P, pageQuery, sendFileBytes, tags } from './api-schemas.ts';
import type { SkillDoorServices } from './context.ts';

const challengeId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'a challenge id: lower-case letters, digits, single hyphens');
const packageParams = z.object({ package_id: idOf('apkg', 'arena skill package') }).strict();

/** The named body schema of the share route (its field list is ours: docs/skills.md). */
export const ArenaPackageBody = z
  .object({
    version_id: idOf('skv', 'skill version'),
    challenge_id: challengeId,
    version: z.number().int().min(1).max(1_000_000).describe('The challenge version.'),
    note: z.string().trim().min(1).max(P.noteChars).optional(),
  })
  .strict();

const op = defineOwnerOperation<SkillDoorServices>();

/**
 * Skill packages shared to Arena challenge versions (docs/skills.md, "Arena packages"), for the
 * owner of the versions: share, list its own by challenge version, read one under a context,
 * withdraw it.
 */
export const skillArenaOperations = [
  op({
    method: 'GET',
    path: '/v1/arena/challenges/:challenge_id/versions/:version/skill-packages',
    tags,
    summary: 'Your live skill packages of one challenge version, newest first',
    params: z
      .object({ challenge_id: challengeId, version: z.coerce.number().int().min(1).max(1_000_000) })
      .strict(),
    query: z.object(pageQuery).strict(),
    run: async (ctx, { ownerId, params, query }) =>
      ctx.skillArena.list(ownerId, params.challenge_id, params.version, query),
  }),
  op({
    method: 'GET',
    path: '/v1/arena/skill-packages/:package_id',
    tags,
    summary: 'One live package under a context (OWN: your own versions), with its files',
    params: packageParams,
    query: z.object({ context }).strict(),
    run: async (ctx, { ownerId, params, query }) =>
      ctx.skillArena.get(ownerId, params.package_id, query.context),
  }),
  op({
    method: 'DELETE',
    path: '/v1/arena/skill-packages/:package_id',
    tags,
    summary: 'Withdraw your package: reads under the Arena contexts stop at once',
    params: packageParams,
    run: async (ctx, { ownerId, params }) => ctx.skillArena.withdraw(ownerId, params.package_id),
  }),
  op({
    method: 'POST',
    path: '/v1/arena/skill-packages',
    tags,
    summary: 'Share one of your skill versions to an Arena challenge version (answers the live share if any)',
    body: ArenaPackageBody,
    run: async (ctx, { ownerId, body }) => {
      const shared = await ctx.skillArena.share(ownerId, body);
      return shared;
    },
    // Answered after the handler: 201 when it made something, 200 when it was already there.
    statusOf: (answer) => (answer.created ? 201 : 200),
  }),
  op({
    method: 'GET',
    path: '/v1/arena/skill-packages/:package_id/file',
    tags,
    summary: 'One window of a package’s file, or its bytes with download=true',
    params: packageParams,
    query: fileReadQuery,
    download: true,
    run: async (ctx, { ownerId, params, query }, { reply }) => {
      const q = query;
      if (!q.download) return ctx.skillArena.file(ownerId, params.package_id, q);
      const file = await ctx.skillArena.fileBytes(ownerId, params.package_id, q);
      return sendFileBytes(reply, file);
    },
  }),
];
