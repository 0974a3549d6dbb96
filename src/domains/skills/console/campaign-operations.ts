import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { SKILL_LIMITS } from '../limits.ts';
import { pageQuery, tagsQuery } from './api-schemas.ts';
import type { SkillDoorServices } from './context.ts';

const tags = ['skills'];
const L = SKILL_LIMITS.list;
const P = SKILL_LIMITS.package;
const campaignParams = z.object({ campaign_id: idOf('cmp', 'campaign') }).strict();
const entryParams = z
  .object({ campaign_id: idOf('cmp', 'campaign'), entry_id: idOf('csk', 'library entry') })
  .strict();
const taskParams = z.object({ task_id: idOf('task', 'task') }).strict();
const bindingParams = z
  .object({ task_id: idOf('task', 'task'), binding_id: idOf('tsk', 'skill attachment') })
  .strict();
const note = z.string().trim().min(1).max(P.noteChars);
const purpose = z.string().trim().min(1).max(P.purposeChars);
const order = z.number().int().min(0).max(1000);
const delivery = z.enum(['RECOMMENDED', 'REQUIRED', 'READ_BEFORE_COMPLETION']);
const leaseQuery = z.object({ lease_id: z.string().min(1).max(L.idChars).optional() }).strict();

/** The named body schemas of SPEC's campaign library and task attachment routes (fields: docs/skills.md). */
export const SKILL_LINK_BODIES = {
  ProposalBody: z.object({ version_id: idOf('skv', 'skill version'), note: note.optional() }).strict(),
  CampaignDecisionScopedBody: z
    .object({ decision: z.enum(['ACCEPT', 'DECLINE']), reason: note.optional() })
    .strict(),
  CampaignUpdateScopedBody: z.object({ note }).strict(),
  CampaignRemoveScopedBody: z.object({ reason: note.optional() }).strict(),
  AttachBody: z.object({ version_id: idOf('skv', 'skill version'), purpose, order, delivery }).strict(),
  BindingUpdateScopedBody: z
    .object({ purpose: purpose.optional(), order: order.optional(), delivery: delivery.optional() })
    .strict()
    .refine((b) => b.purpose !== undefined || b.order !== undefined || b.delivery !== undefined, {
      message: 'send at least one of purpose, order or delivery',
      path: ['purpose'],
    }),
  DetachScopedBody: z.object({ reason: note.optional() }).strict(),
};

const op = defineOwnerOperation<SkillDoorServices>();
const B = SKILL_LINK_BODIES;

/**
 * A campaign's skill library and its tasks' skills, for the campaign's owner (SPEC Endpoints,
 * Skills), inside the owner API scope. Another owner's campaign or task is NOT_FOUND. Every route
 * answers SKILLS_DISABLED when the deployment has skills off.
 */
export const skillCampaignOperations = [
  op({
    method: 'GET',
    path: '/v1/campaigns/:campaign_id/skills',
    tags,
    summary: 'The campaign’s skill library, every state, newest first',
    params: campaignParams,
    query: z
      .object({
        q: z.string().trim().max(L.qChars).optional(),
        ...pageQuery,
        status: z.enum(['AVAILABLE', 'BLOCKED']).optional(),
        campaign_state: z.enum(['PROPOSED', 'ACCEPTED', 'DECLINED', 'REMOVED']).optional(),
        author_id: z.string().max(L.idChars).optional(),
        compatibility: z.string().max(L.compatibilityChars).optional(),
        tags: tagsQuery,
      })
      .strict(),
    run: async (ctx, { ownerId, params, query }) => {
      const q = query;
      return ctx.skillLibrary.list(ownerId, params.campaign_id, {
        q: q.q,
        status: q.status,
        campaignState: q.campaign_state,
        authorId: q.author_id,
        compatibility: q.compatibility,
        tags: q.tags,
        limit: q.limit,
        cursor: q.cursor,
      });
    },
  }),
  op({
    method: 'POST',
    path: '/v1/campaigns/:campaign_id/skills/:entry_id/decision',
    tags,
    summary: 'Accept or decline a proposed entry',
    params: entryParams,
    body: B.CampaignDecisionScopedBody,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skillLibrary.decide(ownerId, params.campaign_id, params.entry_id, body),
  }),
  op({
    method: 'PATCH',
    path: '/v1/campaigns/:campaign_id/skills/:entry_id',
    tags,
    summary: 'Change a live entry’s note',
    params: entryParams,
    body: B.CampaignUpdateScopedBody,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skillLibrary.update(ownerId, params.campaign_id, params.entry_id, body),
  }),
  op({
    method: 'DELETE',
    path: '/v1/campaigns/:campaign_id/skills/:entry_id',
    tags,
    summary: 'Remove an entry from the library (the body may be omitted)',
    params: entryParams,
    body: B.CampaignRemoveScopedBody.nullish(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skillLibrary.remove(ownerId, params.campaign_id, params.entry_id, body ?? {}),
  }),
  op({
    method: 'GET',
    path: '/v1/tasks/:task_id/skills',
    tags,
    summary:
      'The task’s attached skills, in reading order, with where SKILL.md delivery stands under a lease (named, else the live one)',
    params: taskParams,
    query: leaseQuery,
    run: async (ctx, { ownerId, params, query }) =>
      ctx.skillTasks.list(ownerId, params.task_id, query.lease_id),
  }),
  op({
    method: 'GET',
    path: '/v1/tasks/:task_id/skill-usage',
    tags,
    summary:
      'Per attached skill, whether SKILL.md was delivered in full under a lease (named, else the live one), and usage reports',
    params: taskParams,
    query: leaseQuery,
    run: async (ctx, { ownerId, params, query }) =>
      ctx.skillTasks.usage(ownerId, params.task_id, query.lease_id),
  }),
  op({
    method: 'PATCH',
    path: '/v1/tasks/:task_id/skills/:binding_id',
    tags,
    summary: 'Change an attachment’s purpose, order or delivery',
    params: bindingParams,
    body: B.BindingUpdateScopedBody,
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skillTasks.update(ownerId, params.task_id, params.binding_id, body),
  }),
  op({
    method: 'DELETE',
    path: '/v1/tasks/:task_id/skills/:binding_id',
    tags,
    summary: 'Detach a skill from the task, at once (the body may be omitted)',
    params: bindingParams,
    body: B.DetachScopedBody.nullish(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.skillTasks.detach(ownerId, params.task_id, params.binding_id, body?.reason),
  }),
  op({
    method: 'POST',
    path: '/v1/campaigns/:campaign_id/skills',
    tags,
    summary: 'Add a version of your account to the library (accepted at once: you decide)',
    params: campaignParams,
    body: B.ProposalBody,
    status: 201,
    run: async (ctx, { ownerId, params, body }) =>
      await ctx.skillLibrary.propose(ownerId, params.campaign_id, body),
  }),
  op({
    method: 'GET',
    path: '/v1/tasks/:task_id/materials-export',
    tags,
    summary:
      'The task and its attached skills as one zip (MANIFEST.json names what was left out), for the campaign owner or, with its own bearer, the worker holding the lease',
    params: taskParams,
    query: leaseQuery,
    audience: 'OWNER_OR_WORKER',
    download: true,
    run: async (ctx, input, { reply }) => {
      const { worker, params, query } = input;
      // The worker (its own bearer, holding the lease) or the campaign's owner (read only then:
      // a worker's call has no owner).
      const out = worker
        ? await ctx.skillTasks.materialsForWorker(worker, params.task_id, query.lease_id)
        : await ctx.skillTasks.materials(input.ownerId, params.task_id, query.lease_id);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${out.filename}"`)
        .header('x-content-sha256', out.sha256)
        .send(Buffer.from(out.zip));
    },
  }),
  op({
    method: 'POST',
    path: '/v1/tasks/:task_id/skills',
    tags,
    summary: 'Attach a skill version to the task',
    params: taskParams,
    body: B.AttachBody,
    status: 201,
    run: async (ctx, { ownerId, params, body }) => await ctx.skillTasks.attach(ownerId, params.task_id, body),
  }),
];
