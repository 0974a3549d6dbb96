import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { defineOwnerOperation, type OwnerOf } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { answers } from '../../../web/http/openapi.ts';
import {
  context,
  fileReadQuery,
  L,
  pageQuery,
  SKILL_BODIES,
  sendFileBytes,
  tags,
  versionParams,
} from './api-schemas.ts';
import type { ConsoleContext, SkillDoorServices } from './context.ts';

const op = defineOwnerOperation<SkillDoorServices>();

/**
 * Skill versions for owners: one version under a context, its files, its deterministic zip
 * (also for the identity a download_url's ticket stands for), and its grants.
 */
export const skillVersionOperations = [
  op({
    method: 'GET',
    path: '/v1/skills/versions/:version_id',
    tags,
    summary: 'One version under a context',
    params: versionParams,
    query: z.object({ context }).strict(),
    run: async (ctx, { ownerId, params, query }) =>
      ctx.skills.getVersion(ownerId, params.version_id, query.context),
  }),
  op({
    method: 'GET',
    path: '/v1/skills/versions/:version_id/grants',
    tags,
    summary: 'The version’s grants, newest first',
    params: versionParams,
    query: z
      .object({
        ...pageQuery,
      })
      .strict(),
    run: async (ctx, { ownerId, params, query }) => ctx.skillGrants.list(ownerId, params.version_id, query),
  }),
  op({
    method: 'POST',
    path: '/v1/skill-grants/:grant_id/revoke',
    tags,
    summary: 'Revoke a grant: the identity’s next read is refused',
    params: z.object({ grant_id: idOf('sgr', 'skill grant') }).strict(),
    body: SKILL_BODIES.RevokeBody,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skillGrants.revoke(ownerId, params.grant_id, body.reason),
  }),
];

/** The routes not yet operations (they answer with the reply themselves, or take more than an owner). */
export async function skillVersionApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: OwnerOf,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();
  const s = ctx.skills;

  r.get(
    '/v1/skills/versions/:version_id/file',
    {
      // A HEAD would run the handler and record a delivery without sending a byte.
      exposeHeadRoute: false,
      schema: {
        tags,
        summary: 'One window of a version’s file, or its bytes with download=true',
        params: versionParams,
        querystring: fileReadQuery,
      },
    },
    async (req, reply) => {
      const q = req.query;
      if (!q.download) return s.versionFile(ownerOf(req), req.params.version_id, q);
      const file = await s.versionFileBytes(ownerOf(req), req.params.version_id, q);
      return sendFileBytes(reply, file);
    },
  );

  r.get(
    '/v1/skills/versions/:version_id/download',
    {
      config: { ticketAuth: true },
      // A HEAD would run the handler and record a delivery without sending a byte.
      exposeHeadRoute: false,
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
      config: answers([200, 201]),
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
}
