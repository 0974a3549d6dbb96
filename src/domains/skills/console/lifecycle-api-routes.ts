import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LIMITS } from '../../../kernel/limits.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { L, pageQuery, tags, versionParams } from './api-schemas.ts';
import type { ConsoleContext } from './context.ts';

const reason = z.string().trim().min(1).max(LIMITS.skillPackage.noteChars);
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

/**
 * The lifecycle of the owner's skills (SPEC Endpoints, Skills; docs/skills.md): archive, block
 * (by the owner or an operator), privacy byte deletion, the version's history, activity and
 * usage pages, diffs between two versions, and the distribution consents.
 */
export async function skillLifecycleApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();
  const life = ctx.skillLifecycle;
  const hist = ctx.skillHistory;

  r.post(
    '/v1/skills/:skill_id/archive',
    {
      schema: {
        tags,
        summary:
          'Archive a skill (its versions stay where they are, but are not newly shared), or unarchive it',
        params: z.object({ skill_id: idOf('skl', 'skill') }).strict(),
        body: SKILL_LIFECYCLE_BODIES.ArchiveBody,
      },
    },
    async (req) => life.archive(ownerOf(req), req.params.skill_id, req.body),
  );

  r.post(
    '/v1/skills/versions/:version_id/block',
    {
      schema: {
        tags,
        summary:
          'Block a version (delivered to no one but its owner), or lift the block; operators may block any version',
        params: versionParams,
        body: SKILL_LIFECYCLE_BODIES.BlockBody,
      },
    },
    async (req) => {
      const me = ownerOf(req);
      return life.block(me, await ctx.operators.isOperator(me), req.params.version_id, req.body);
    },
  );

  r.post(
    '/v1/skills/versions/:version_id/privacy-byte-deletion',
    {
      schema: {
        tags,
        summary: 'Delete the version’s file bytes for good; hashes and history stay',
        params: versionParams,
        body: SKILL_LIFECYCLE_BODIES.PrivacyBytesBody,
      },
    },
    async (req) => life.deleteBytes(ownerOf(req), req.params.version_id, req.body.reason),
  );

  r.get(
    '/v1/skills/versions/:version_id/history',
    {
      schema: {
        tags,
        summary: 'The versions of this version’s skill, newest first',
        params: versionParams,
        querystring: pageQueryObject,
      },
    },
    async (req) => hist.history(ownerOf(req), req.params.version_id, req.query),
  );

  r.get(
    '/v1/skills/versions/:version_id/activity',
    {
      schema: {
        tags,
        summary: 'What happened to this version and its skill, newest first',
        params: versionParams,
        querystring: pageQueryObject,
      },
    },
    async (req) => hist.activity(ownerOf(req), req.params.version_id, req.query),
  );

  r.get(
    '/v1/skills/versions/:version_id/usage',
    {
      schema: {
        tags,
        summary: 'What workers reported of this version, newest first',
        params: versionParams,
        querystring: pageQueryObject,
      },
    },
    async (req) => hist.usage(ownerOf(req), req.params.version_id, req.query),
  );

  r.get(
    '/v1/skills/versions/:version_id/diff',
    {
      schema: {
        tags,
        summary: 'Unified diff from other_version_id (-) to this version (+), of one path or every file',
        params: versionParams,
        querystring: z
          .object({
            other_version_id: z.string().max(L.idChars).pipe(idOf('skv', 'skill version')),
            path: z.string().min(1).max(L.pathChars).optional(),
          })
          .strict(),
      },
    },
    async (req) => hist.diff(ownerOf(req), req.params.version_id, req.query),
  );

  r.get(
    '/v1/skills/distribution-consents',
    {
      schema: {
        tags,
        summary:
          'Every live place your versions are shared (grants, campaign libraries, task attachments, Arena packages), newest first',
        querystring: pageQueryObject,
      },
    },
    async (req) => hist.consents(ownerOf(req), req.query),
  );
}
