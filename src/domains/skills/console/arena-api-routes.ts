import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { defineOwnerOperation, type OwnerOf } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { answers } from '../../../web/http/openapi.ts';
import { context, fileReadQuery, P, pageQuery, sendFileBytes, tags } from './api-schemas.ts';
import type { ConsoleContext, SkillDoorServices } from './context.ts';

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
];

/** The routes not yet operations (they answer with the reply themselves, or take more than an owner). */
export async function skillArenaApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: OwnerOf,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();
  const s = ctx.skillArena;

  r.post(
    '/v1/arena/skill-packages',
    {
      config: answers([200, 201]),
      schema: {
        tags,
        summary:
          'Share one of your skill versions to an Arena challenge version (answers the live share if any)',
        body: ArenaPackageBody,
      },
    },
    async (req, reply) => {
      const shared = await s.share(ownerOf(req), req.body);
      return reply.code(shared.created ? 201 : 200).send(shared);
    },
  );

  r.get(
    '/v1/arena/skill-packages/:package_id/file',
    {
      // A HEAD would run the handler and record a delivery without sending a byte.
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: 'One window of a package’s file, or its bytes with download=true',
        params: packageParams,
        querystring: fileReadQuery,
      },
    },
    async (req, reply) => {
      const q = req.query;
      if (!q.download) return s.file(ownerOf(req), req.params.package_id, q);
      const file = await s.fileBytes(ownerOf(req), req.params.package_id, q);
      return sendFileBytes(reply, file);
    },
  );
}
