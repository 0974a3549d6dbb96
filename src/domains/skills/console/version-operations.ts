import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
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
import type { SkillDoorServices } from './context.ts';

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
  op({
    method: 'GET',
    path: '/v1/skills/versions/:version_id/file',
    tags,
    summary: 'One window of a version’s file, or its bytes with download=true',
    params: versionParams,
    query: fileReadQuery,
    download: true,
    run: async (ctx, { ownerId, params, query }, { reply }) => {
      const q = query;
      if (!q.download) return ctx.skills.versionFile(ownerId, params.version_id, q);
      const file = await ctx.skills.versionFileBytes(ownerId, params.version_id, q);
      return sendFileBytes(reply, file);
    },
  }),
  op({
    method: 'GET',
    path: '/v1/skills/versions/:version_id/download',
    tags,
    summary: 'The version as one deterministic zip (same version, same bytes and package_sha256)',
    params: versionParams,
    query: z.object({ context, ticket: z.string().min(1).max(L.cursorChars).optional() }).strict(),
    audience: 'OWNER_OR_TICKET',
    download: true,
    run: async (ctx, { params, query }, { req, reply }) => {
      const { ticket } = query;
      const who = req.owner ? { ownerId: req.owner.id } : { ticket: ticket ?? '' };
      const pkg = await ctx.skills.download(who, params.version_id, query.context);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${pkg.filename}"`)
        .header('x-content-sha256', pkg.sha256)
        .send(Buffer.from(pkg.zip));
    },
  }),
  op({
    method: 'POST',
    path: '/v1/skills/versions/:version_id/grants',
    tags,
    summary: 'Let one identity read this version (context OWN) until you revoke it',
    params: versionParams,
    body: SKILL_BODIES.GrantBody,
    run: async (ctx, { ownerId, params, body }) => {
      const grant = await ctx.skillGrants.grant(ownerId, params.version_id, body);
      return grant;
    },
    // Answered after the handler: 201 when it made something, 200 when it was already there.
    statusOf: (answer) => (answer.created ? 201 : 200),
  }),
];
