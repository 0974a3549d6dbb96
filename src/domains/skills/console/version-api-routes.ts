import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
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
import type { ConsoleContext } from './context.ts';

/**
 * Skill versions for owners: one version under a context, its files, its deterministic zip
 * (also for the identity a download_url's ticket stands for), and its grants.
 */
export async function skillVersionApiRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();
  const s = ctx.skills;

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

  r.get(
    '/v1/skills/versions/:version_id/grants',
    {
      schema: {
        tags,
        summary: 'The version’s grants, newest first',
        params: versionParams,
        querystring: z
          .object({
            ...pageQuery,
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
