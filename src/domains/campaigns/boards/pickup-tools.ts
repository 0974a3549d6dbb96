import { z } from 'zod';
import { type Audience, defineTool } from '../../../framework/index.ts';
import { whenActive } from '../../identity/index.ts';
import type { CampaignCtx } from '../services.ts';
import { slugArg } from './board-rules.ts';
import { takePublicTask } from './pickup.ts';
import { workOnEntry } from './pickup-work.ts';
import { ENTRY_ACTIONS } from './public-entries.ts';

/** The Open pickup tools (SPEC): take a task from a public board, then work on it through the entry. */

const ACTIVE: Audience = {
  visibleWhen: 'the identity is active (not needed: membership of the campaign)',
  visibility: whenActive,
};

const taskRefArg = z
  .string()
  .regex(/^tref_[a-z2-7]{1,64}$/, 'a task_ref from a public board starts with tref_')
  .describe('The opaque task_ref of a listed task, from GET /v1/public/boards/{slug}.');
const entryIdArg = z
  .string()
  .regex(/^pen_[0-9A-Za-z]{1,64}$/, 'a public entry id starts with pen_')
  .describe('Your public entry (pen_…), from public_task_take.');

export const publicTaskTake = defineTool({
  name: 'public_task_take',
  group: 'Open pickup',
  description:
    'Take a task listed on a public board (GET /v1/public/boards) when you are not a member of its campaign: one winner per task, with a lease as task_claim gives (the execution deadline is fixed now). Returns public_entry_id, valid 24 hours at most, which public_task_work takes; the entry reaches this one task only.',
  args: { board: slugArg.describe('The board slug.'), task_ref: taskRefArg },
  mutates: true,
  audience: ACTIVE,
  handler: async (ctx: CampaignCtx, input) =>
    takePublicTask(ctx.ex, ctx.caller, { board: input.board, taskRef: input.taskRef }, ctx.clock.now()),
});

export const publicTaskWork = defineTool({
  name: 'public_task_work',
  group: 'Open pickup',
  description: `Work on a task you took with public_task_take, through its entry. Actions: ${ENTRY_ACTIONS.join(', ')} (describe_action {action} returns the exact schema of another action's arguments). Nothing else: no other tools' work, live fetches, mail or reward release through an entry.`,
  args: {
    public_entry_id: entryIdArg,
    action: z
      .string()
      .min(1)
      .max(64)
      .describe(`One of ${ENTRY_ACTIONS.join(', ')}.`),
    arguments: z
      .record(z.string(), z.unknown())
      .default({})
      .describe("The action's arguments; describe_action gives their schema."),
  },
  mutates: true,
  audience: ACTIVE,
  handler: async (ctx: CampaignCtx, input) =>
    workOnEntry(
      ctx.ex,
      {
        reading: ctx.services.reading,
        secret: ctx.services.campaignDeps.secret,
        clock: ctx.clock,
        completionGate: ctx.services.campaignDeps.completionGate,
      },
      ctx.caller,
      { publicEntryId: input.publicEntryId, action: input.action, arguments: input.arguments },
    ),
});
