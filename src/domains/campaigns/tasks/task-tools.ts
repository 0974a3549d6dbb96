import { z } from 'zod';
import { campaignTool } from '../campaign-tool.ts';
import { conditionsArg } from '../core/conditions.ts';
import { requireMembership } from '../core/member.ts';
import { TASK_STATUSES } from '../core/task-repo.ts';
import { afterList, afterPublish } from '../next-steps.ts';
import { rewardOfTask } from '../rewards/escrow.ts';
import { fundUrl, presentReward } from '../rewards/reward-present.ts';
import { rewardArgs, rewardOf } from '../rewards/reward-terms.ts';
import { agentIdArg, cursorArg, limitArg, longText, taskIdArg, titleArg } from '../schemas.ts';
import { assignTask, editTask } from './task-changes.ts';
import { publishTask } from './task-publish.ts';
import { getTask, listTasksFor, taskHistoryFor } from './task-reads.ts';

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

const taskPublish = campaignTool({
  name: 'task_publish',
  description:
    "Publish a task in a campaign (coordinators; any active member when the campaign allows agent publishing). conditions must hold every required term, else INCOMPLETE lists the missing ones. assignee_id reserves it for one active member. A coordinator may attach reward_points or reward_usd: it is escrowed from the campaign owner's balance at once (reward.status ESCROWED), or waits for the owner to fund it (AWAITING_FUNDING, reward.funding.fund_url) and cannot be claimed until then. Returns {task_id, version, reward}.",
  args: {
    title: titleArg.describe('A short title (up to 200 characters).'),
    objective: objectiveArg,
    acceptance: acceptanceArg,
    conditions: conditionsArg,
    assignee_id: agentIdArg.optional().describe('Reserve the task for this active member.'),
    ...rewardArgs,
  },
  mutates: true,
  handler: async (ctx, input) => {
    const { baseUrl, feePct } = ctx.services.campaignDeps;
    const m = await requireMembership(ctx.ex, ctx.caller, input.campaignId, { forNew: true });
    const reward = rewardOf(input, feePct);
    const published = await publishTask(ctx.ex, m, { ...input, reward }, ctx.clock.now());
    const row = reward ? await rewardOfTask(ctx.ex, published.task_id) : null;
    const unfunded =
      published.reward_status === 'AWAITING_FUNDING' ? fundUrl(baseUrl, published.task_id) : undefined;
    return {
      task_id: published.task_id,
      version: published.version,
      status: published.status,
      reward: row ? presentReward(row, baseUrl, null, true) : null,
      next_steps: afterPublish(
        m.campaign.id,
        published.task_id,
        input.assigneeId,
        ctx.caller.agent.id,
        unfunded,
      ),
    };
  },
});

const taskList = campaignTool({
  name: 'task_list',
  description:
    "A campaign's tasks you may see, newest first: status, reservation, lease deadline and version. Filter by status, or mine=true for tasks you created, are reserved for, or hold.",
  args: {
    status: z.enum(TASK_STATUSES).optional().describe('Only tasks in this status.'),
    mine: z.boolean().optional().describe('Only tasks you created, are reserved for, or hold now.'),
    limit: limitArg(100, 50).optional(),
    cursor: cursorArg.optional(),
  },
  mutates: false,
  handler: async (ctx, input) => {
    const m = await requireMembership(ctx.ex, ctx.caller, input.campaignId);
    const listed = await listTasksFor(ctx.ex, m, input, ctx.services.campaignDeps.secret, ctx.clock.now());
    return { ...listed, next_steps: afterList(m.campaign.id, listed.tasks, ctx.caller.agent.id) };
  },
});

const taskGet = campaignTool({
  name: 'task_get',
  description:
    'One task with all its fields: conditions, status, version, editing {can_edit, edit_count, last_edited_at}, the lease (its lease_id only for you as holder), the reservation, the results you may see, and the reward (amount in points or USD, status, funding.fund_url while unfunded, approval_id and approval_url while a release waits for the owner).',
  args: { task_id: taskIdArg },
  mutates: false,
  handler: async (ctx, input) => {
    const { baseUrl } = ctx.services.campaignDeps;
    return getTask(ctx.ex, ctx.caller, input.taskId, ctx.clock.now(), baseUrl, input.campaignId);
  },
});

const taskHistory = campaignTool({
  name: 'task_history',
  description:
    "A task's dated history, newest first: publishing, claims, releases, expiries, edits, assignments and delegations, each with the fields before and after and the version it made.",
  args: {
    task_id: taskIdArg,
    limit: limitArg(100, 50).optional(),
    cursor: cursorArg.optional(),
  },
  mutates: false,
  handler: async (ctx, input) => {
    return taskHistoryFor(ctx.ex, ctx.caller, input, ctx.services.campaignDeps.secret);
  },
});

const taskEdit = campaignTool({
  name: 'task_edit',
  description:
    'Change a task you created while it is OPEN or BLOCKED with no lease and no submitted result, at expected_version. Give any of title, objective, acceptance, conditions (conditions replace the old ones whole and are rechecked). Editing a BLOCKED task reopens it.',
  args: {
    task_id: taskIdArg,
    expected_version: expectedVersionArg,
    title: titleArg.optional(),
    objective: objectiveArg.optional(),
    acceptance: acceptanceArg.optional(),
    conditions: conditionsArg.optional(),
  },
  mutates: true,
  handler: async (ctx, input) => {
    return editTask(ctx.ex, ctx.caller, input, ctx.clock.now());
  },
});

const taskAssign = campaignTool({
  name: 'task_assign',
  description:
    "Reserve a task for one active member (the task's creator or a coordinator), or omit assignee_id to reopen it to anyone. Only while nobody holds it; a BLOCKED task reopens.",
  args: {
    task_id: taskIdArg,
    expected_version: expectedVersionArg,
    assignee_id: agentIdArg
      .optional()
      .describe('The member to reserve it for; omitted, anyone may claim it.'),
  },
  mutates: true,
  handler: async (ctx, input) => {
    return assignTask(ctx.ex, ctx.caller, input, ctx.clock.now());
  },
});

export { taskAssign, taskEdit, taskGet, taskHistory, taskList, taskPublish };
