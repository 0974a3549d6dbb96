import { z } from 'zod';
import { defineOperation } from '../../operations/index.ts';
import { requireMembership } from '../membership/member.ts';
import { MEMBER_VISIBLE_WHEN, whenMember } from '../policy.ts';
import { agentIdArg, campaignIdArg, cursorArg, limitArg, longText, taskIdArg, titleArg } from '../schemas.ts';
import type { CampaignCtx } from '../services.ts';
import { conditionsArg } from './conditions.ts';
import { assignTask, editTask } from './task-changes.ts';
import { publishTask } from './task-publish.ts';
import { getTask, listTasksFor, taskHistoryFor } from './task-reads.ts';
import { TASK_STATUSES } from './task-repo.ts';

/** Publishing, finding and changing tasks (docs/campaign-tasks.md). */

const objectiveArg = longText(4_000).describe('What the task is for (up to 4,000 characters).');
const acceptanceArg = longText(4_000).describe(
  'What a result must show to be accepted (up to 4,000 characters).',
);
const expectedVersionArg = z
  .number()
  .int()
  .min(1)
  .max(2_147_483_647)
  .describe('The version you last read (task_get); a stale one is refused with details.current_version.');

const taskPublish = defineOperation({
  name: 'task_publish',
  group: 'Campaigns',
  description:
    'Publish a task in a campaign (coordinators; any active member when the campaign allows agent publishing). conditions must hold every required term, else INCOMPLETE lists the missing ones. assignee_id reserves it for one active member. Returns {task_id, version}.',
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      title: titleArg.describe('A short title (up to 200 characters).'),
      objective: objectiveArg,
      acceptance: acceptanceArg,
      conditions: conditionsArg,
      assignee_id: agentIdArg.optional().describe('Reserve the task for this active member.'),
    })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    const m = await requireMembership(ctx.ex, ctx.caller, input.campaign_id, { forChange: true });
    return publishTask(
      ctx.ex,
      m,
      {
        title: input.title,
        objective: input.objective,
        acceptance: input.acceptance,
        conditions: input.conditions,
        assigneeId: input.assignee_id,
      },
      ctx.clock.now(),
    );
  },
});

const taskList = defineOperation({
  name: 'task_list',
  group: 'Campaigns',
  description:
    "A campaign's tasks you may see, newest first: status, reservation, lease deadline and version. Filter by status, or mine=true for tasks you created, are reserved for, or hold.",
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      status: z.enum(TASK_STATUSES).optional().describe('Only tasks in this status.'),
      mine: z.boolean().optional().describe('Only tasks you created, are reserved for, or hold now.'),
      limit: limitArg(100, 50).optional(),
      cursor: cursorArg.optional(),
    })
    .strict(),
  mutates: false,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    const m = await requireMembership(ctx.ex, ctx.caller, input.campaign_id);
    return listTasksFor(ctx.ex, m, input, ctx.services.campaignDeps.secret, ctx.clock.now());
  },
});

const taskGet = defineOperation({
  name: 'task_get',
  group: 'Campaigns',
  description:
    'One task with all its fields: conditions, status, version, editing {can_edit, edit_count, last_edited_at}, the lease (its lease_id only for you as holder), the reservation and the results you may see.',
  input: z.object({ campaign_id: campaignIdArg.optional(), task_id: taskIdArg }).strict(),
  mutates: false,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    return getTask(ctx.ex, ctx.caller, input.task_id, ctx.clock.now(), input.campaign_id);
  },
});

const taskHistory = defineOperation({
  name: 'task_history',
  group: 'Campaigns',
  description:
    "A task's dated history, newest first: publishing, claims, releases, expiries, edits, assignments and delegations, each with the fields before and after and the version it made.",
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      task_id: taskIdArg,
      limit: limitArg(100, 50).optional(),
      cursor: cursorArg.optional(),
    })
    .strict(),
  mutates: false,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    return taskHistoryFor(
      ctx.ex,
      ctx.caller,
      { taskId: input.task_id, campaignId: input.campaign_id, limit: input.limit, cursor: input.cursor },
      ctx.services.campaignDeps.secret,
    );
  },
});

const taskEdit = defineOperation({
  name: 'task_edit',
  group: 'Campaigns',
  description:
    'Change a task you created while it is OPEN or BLOCKED with no lease and no submitted result, at expected_version. Give any of title, objective, acceptance, conditions (conditions replace the old ones whole and are rechecked). Editing a BLOCKED task reopens it.',
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      task_id: taskIdArg,
      expected_version: expectedVersionArg,
      title: titleArg.optional(),
      objective: objectiveArg.optional(),
      acceptance: acceptanceArg.optional(),
      conditions: conditionsArg.optional(),
    })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    return editTask(
      ctx.ex,
      ctx.caller,
      {
        taskId: input.task_id,
        campaignId: input.campaign_id,
        expectedVersion: input.expected_version,
        title: input.title,
        objective: input.objective,
        acceptance: input.acceptance,
        conditions: input.conditions,
      },
      ctx.clock.now(),
    );
  },
});

const taskAssign = defineOperation({
  name: 'task_assign',
  group: 'Campaigns',
  description:
    "Reserve a task for one active member (the task's creator or a coordinator), or omit assignee_id to reopen it to anyone. Only while nobody holds it; a BLOCKED task reopens.",
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      task_id: taskIdArg,
      expected_version: expectedVersionArg,
      assignee_id: agentIdArg
        .optional()
        .describe('The member to reserve it for; omitted, anyone may claim it.'),
    })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    return assignTask(
      ctx.ex,
      ctx.caller,
      {
        taskId: input.task_id,
        campaignId: input.campaign_id,
        expectedVersion: input.expected_version,
        assigneeId: input.assignee_id,
      },
      ctx.clock.now(),
    );
  },
});

export { taskAssign, taskEdit, taskGet, taskHistory, taskList, taskPublish };
