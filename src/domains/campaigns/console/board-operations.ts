import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { BOARD_PURPOSES, MAX_BOARD_TASKS, slugArg } from '../boards/board-rules.ts';
import type { CampaignDoorServices } from './context.ts';

const tags = ['boards'];
const title = z.string().trim().min(1).max(200).describe('What the board is called (1-200 characters).');
const purpose = z.enum(BOARD_PURPOSES).describe('What the work is for: WORK, DEMO, TEST or UNCLASSIFIED.');
const taskIds = z
  .array(idOf('task', 'task'))
  .min(1)
  .max(MAX_BOARD_TASKS)
  .describe(
    `The campaign's tasks to list, in order (1-${MAX_BOARD_TASKS}); each says participation: OPEN and publish_contract: true.`,
  );

const op = defineOwnerOperation<CampaignDoorServices>();
const params = z.object({ slug: slugArg }).strict();

/**
 * Public task boards for their owner (docs/boards.md): publish, change and withdraw, inside the
 * owner API scope (session or owner token, JSON bodies only). Another owner's board is NOT_FOUND.
 */
export const boardOperations = [
  op({
    method: 'GET',
    path: '/v1/boards',
    tags,
    summary: 'Your boards, newest first (withdrawn ones marked)',
    run: async (ctx, { ownerId }) => ctx.boards.list(ownerId),
  }),
  op({
    method: 'GET',
    path: '/v1/boards/:slug',
    tags,
    summary: 'One of your boards, with the task behind each ref',
    params,
    run: async (ctx, { ownerId, params }) => ctx.boards.get(ownerId, params.slug),
  }),
  op({
    method: 'PATCH',
    path: '/v1/boards/:slug',
    tags,
    summary: 'Change the title, purpose or listed tasks of a published board (a kept task keeps its ref)',
    params,
    body: z
      .object({ title: title.optional(), purpose: purpose.optional(), task_ids: taskIds.optional() })
      .strict()
      .refine((b) => Object.keys(b).length > 0, 'name at least one of title, purpose, task_ids'),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.boards.update(ownerId, params.slug, {
        title: body.title,
        purpose: body.purpose,
        taskIds: body.task_ids,
      }),
  }),
  op({
    method: 'DELETE',
    path: '/v1/boards/:slug',
    tags,
    summary: 'Withdraw a board: gone from the public at once (the slug stays taken)',
    params,
    run: async (ctx, { ownerId, params }) => ctx.boards.withdraw(ownerId, params.slug),
  }),
  op({
    method: 'POST',
    path: '/v1/boards',
    tags,
    summary: "Publish a board of a campaign's open-pickup tasks under a public slug",
    body: z
      .object({ slug: slugArg, title, purpose, campaign_id: idOf('cmp', 'campaign'), task_ids: taskIds })
      .strict(),
    status: 201,
    run: async (ctx, { ownerId, body }, { reply }) => {
      const b = body;
      const board = await ctx.boards.publish(ownerId, {
        slug: b.slug,
        title: b.title,
        purpose: b.purpose,
        campaignId: b.campaign_id,
        taskIds: b.task_ids,
      });
      return reply.code(201).header('location', board.url).send(board);
    },
  }),
];
