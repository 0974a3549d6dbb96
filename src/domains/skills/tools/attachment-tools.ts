import { z } from 'zod';
import { defineTool, type OperationContext } from '../../../framework/index.ts';
import {
  attachVersion,
  type BindingRow,
  detachBinding,
  presentBinding,
  updateBinding,
} from '../attachments.ts';
import { contextString } from '../context.ts';
import { SKILL_LIMITS } from '../limits.ts';
import { actorOf, SKILLS_AUDIENCE, SKILLS_MEMBER_AUDIENCE } from '../policy.ts';
import { taskStandingForChange } from '../standing.ts';
import { reportUsage } from '../usage.ts';
import { versionIdArg } from './version-tools.ts';

/**
 * Task attachments and usage reports (SPEC Skills). The worker lists and reads a task's skills
 * with skill_list / skill_get / skill_file_get under context TASK; READ_BEFORE_COMPLETION holds
 * task_complete until it has read each such SKILL.md to the end under its lease.
 */

type Ctx = OperationContext<object>;
const group = 'Skills' as const;
const P = SKILL_LIMITS.package;

const taskArg = z
  .string()
  .max(SKILL_LIMITS.list.idChars)
  .regex(/^task_[0-9A-Za-z]{1,64}$/, 'a task id starts with task_')
  .describe('The task (task_…).');
const bindingArg = z
  .string()
  .max(SKILL_LIMITS.list.idChars)
  .regex(/^tsk_[0-9A-Za-z]{1,64}$/, 'an attachment id starts with tsk_')
  .describe('The attachment (tsk_…), from task_skill_attach or the TASK_SKILL_ATTACHED ledger event.');
export const purposeArg = z
  .string()
  .trim()
  .min(1)
  .max(P.purposeChars)
  .describe('What the worker should use it for (1-500 characters).');
export const orderArg = z
  .number()
  .int()
  .min(0)
  .max(1000)
  .describe('Reading order among the task’s skills (0-1000, lowest first).');
export const deliveryArg = z
  .enum(['RECOMMENDED', 'REQUIRED', 'READ_BEFORE_COMPLETION'])
  .describe(
    'RECOMMENDED: offered; REQUIRED: the worker is told it must apply it; READ_BEFORE_COMPLETION: task_complete is refused until the worker has read its whole SKILL.md under its lease.',
  );
const reasonArg = z.string().trim().min(1).max(P.noteChars);

function taskNext(b: BindingRow) {
  const context = contextString({ scope: 'TASK', task_id: b.taskId });
  return [
    {
      tool: 'skill_list',
      action: 'The task’s attached skills, as its worker sees them.',
      arguments: { context },
    },
    {
      tool: 'task_skill_update',
      action: 'Change purpose, order or delivery.',
      arguments: { task_id: b.taskId, binding_id: b.id },
    },
    {
      tool: 'task_skill_detach',
      action: 'Detach it (at once).',
      arguments: { task_id: b.taskId, binding_id: b.id },
    },
  ];
}

export const taskSkillAttach = defineTool({
  name: 'task_skill_attach',
  group,
  description:
    'Attach a skill version to a task, as the task’s creator or a coordinator of its campaign: a version the campaign’s library accepted, or one of your owner’s account (not archived or blocked). One live attachment per version and task. The worker holding the lease reads it under context TASK.',
  args: {
    task_id: taskArg,
    version_id: versionIdArg,
    purpose: purposeArg,
    order: orderArg,
    delivery: deliveryArg,
  },
  mutates: true,
  audience: SKILLS_MEMBER_AUDIENCE,
  handler: async (ctx: Ctx, input) => {
    const now = ctx.clock.now();
    const s = await taskStandingForChange(ctx.ex, actorOf(ctx.caller), input.taskId, now);
    const { binding, version } = await attachVersion(ctx.ex, s, input, now);
    return {
      ...presentBinding(binding, version),
      next:
        binding.delivery === 'READ_BEFORE_COMPLETION'
          ? 'The task’s worker must read this SKILL.md to the end under its lease before task_complete is taken.'
          : 'The task’s worker sees it with skill_list under context TASK.',
      next_steps: taskNext(binding),
    };
  },
});

export const taskSkillUpdate = defineTool({
  name: 'task_skill_update',
  group,
  description:
    'Change a task attachment’s purpose, order or delivery (send at least one), as the task’s creator or a coordinator. A new delivery applies at once, also to a worker already holding the lease.',
  args: {
    task_id: taskArg,
    binding_id: bindingArg,
    purpose: purposeArg.optional(),
    order: orderArg.optional(),
    delivery: deliveryArg.optional(),
  },
  mutates: true,
  audience: SKILLS_MEMBER_AUDIENCE,
  handler: async (ctx: Ctx, input) => {
    const now = ctx.clock.now();
    const s = await taskStandingForChange(ctx.ex, actorOf(ctx.caller), input.taskId, now);
    const binding = await updateBinding(ctx.ex, s, input, now);
    return { ...presentBinding(binding), next_steps: taskNext(binding) };
  },
});

export const taskSkillDetach = defineTool({
  name: 'task_skill_detach',
  group,
  description:
    'Detach a skill from a task, as the task’s creator or a coordinator: at once, the worker no longer reaches it under context TASK and it no longer holds task_complete.',
  args: {
    task_id: taskArg,
    binding_id: bindingArg,
    reason: reasonArg.optional().describe('Why (up to 2,000 characters).'),
  },
  mutates: true,
  audience: SKILLS_MEMBER_AUDIENCE,
  handler: async (ctx: Ctx, input) => {
    const now = ctx.clock.now();
    const s = await taskStandingForChange(ctx.ex, actorOf(ctx.caller), input.taskId, now);
    const binding = await detachBinding(ctx.ex, s, input, now);
    return {
      ...presentBinding(binding),
      next_steps: [
        {
          tool: 'skill_list',
          action: 'The task’s remaining skills.',
          arguments: { context: contextString({ scope: 'TASK', task_id: binding.taskId }) },
        },
      ],
    };
  },
});

export const skillUsageReport = defineTool({
  name: 'skill_usage_report',
  group,
  description:
    'Say what came of a skill attached to the task whose lease you hold: APPLIED, NOT_NEEDED, INCOMPATIBLE or DECLINED, with an optional note. Recorded with your lease; the campaign’s owner and the skill’s owner see it.',
  args: {
    task_id: taskArg,
    version_id: versionIdArg,
    outcome: z.enum(['APPLIED', 'NOT_NEEDED', 'INCOMPATIBLE', 'DECLINED']),
    note: z
      .string()
      .trim()
      .min(1)
      .max(P.noteChars)
      .optional()
      .describe('What happened (up to 2,000 characters).'),
  },
  mutates: true,
  audience: SKILLS_AUDIENCE,
  handler: async (ctx: Ctx, input) => {
    const report = await reportUsage(ctx.ex, actorOf(ctx.caller), input, ctx.clock.now());
    return {
      ...report,
      next_steps: [
        {
          tool: 'task_complete',
          action: 'Complete the task when its work is done.',
          arguments: { task_id: input.taskId },
        },
      ],
    };
  },
});

export const attachmentTools = [taskSkillAttach, taskSkillUpdate, taskSkillDetach, skillUsageReport];
