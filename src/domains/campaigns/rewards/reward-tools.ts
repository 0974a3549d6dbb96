import { z } from 'zod';
import { DomainError } from '../../../kernel/errors.ts';
import { campaignTool, RECORD_READERS } from '../campaign-tool.ts';
import { storedConditions } from '../core/conditions.ts';
import { actorOf } from '../core/member.ts';
import { taskForMember } from '../core/task-access.ts';
import { lockTask } from '../core/task-repo.ts';
import { longText, taskIdArg } from '../schemas.ts';
import { requestRelease, returnForRework } from './release.ts';

/** reward_release (SPEC tool table): RELEASE asks the campaign owner to approve; RETURN sends to rework. */
export const rewardRelease = campaignTool({
  name: 'reward_release',
  description:
    "Ask for a task's reward after a VERIFIED result, or send the result back. RELEASE (the worker whose result verified, or a coordinator) asks the campaign owner to approve the payout and returns approval_id and approval_url; it pays nothing by itself. RETURN (a coordinator or the task's reviewer, with a reason) sends the result to rework: the same worker may claim and resubmit while rework_limit lasts, after which the task reopens to every member.",
  args: {
    task_id: taskIdArg,
    action: z
      .enum(['RELEASE', 'RETURN'])
      .describe('RELEASE: ask the owner to approve the payout. RETURN: rework.'),
    reason: longText(2_000)
      .optional()
      .describe(
        'Why the result goes back (required for RETURN; the worker reads it), up to 2,000 characters.',
      ),
  },
  mutates: true,
  // RELEASE of finished work stays possible once the campaign closed (docs/campaign-lifecycle.md):
  // the worker earned it. RETURN (rework) needs an open campaign.
  audience: RECORD_READERS,
  handler: async (ctx, input) => {
    const now = ctx.clock.now();
    const { member, task: seen } = await taskForMember(ctx.ex, ctx.caller, input.taskId, {
      forChange: input.action === 'RETURN',
      campaignId: input.campaignId,
    });
    const task = await lockTask(ctx.ex, seen.id);
    const inCampaign = { campaign_id: task.campaignId };
    if (input.action === 'RELEASE') {
      const who = { agentId: member.agentId, role: member.role };
      const asked = await requestRelease(ctx.ex, task, who, ctx.services.campaignDeps.baseUrl, now);
      // The outcome is a result about the worker: under OWNER_ONLY_RESULTS only the worker sees
      // it on the ledger, so anyone else is pointed at task_get, which shows reward.status.
      const seesOutcome =
        member.campaign.visibility !== 'OWNER_ONLY_RESULTS' || asked.worker_agent_id === member.agentId;
      return {
        ...asked,
        next_steps: [
          {
            tool: 'task_get',
            action:
              'reward.status turns PAID when the owner approves; the task reopens (OPEN) when they return it.',
            arguments: { task_id: task.id },
          },
          ...(seesOutcome
            ? [
                {
                  tool: 'events_watch',
                  action:
                    'Or wait for the owner: REWARD_PAID when approved, TASK_RETURNED when sent back for rework.',
                  arguments: inCampaign,
                },
              ]
            : []),
        ],
      };
    }
    const reviewer = storedConditions(task.conditions).reviewer;
    if (member.role !== 'COORDINATOR' && reviewer !== member.agentId) {
      throw new DomainError(
        'ROLE_REQUIRED',
        "Only a coordinator or the task's reviewer (conditions.reviewer) may return a result for rework.",
        { task_id: task.id, required_role: 'COORDINATOR', your_role: member.role },
      );
    }
    if (!input.reason) {
      throw new DomainError('VALIDATION_FAILED', 'RETURN needs a reason the worker can act on.', {
        detail: [{ loc: ['reason'], msg: 'required for RETURN', type: 'value_error' }],
      });
    }
    const returned = await returnForRework(ctx.ex, task, actorOf(member), input.reason, now);
    return {
      ...returned,
      next_steps: [
        returned.reserved_for
          ? {
              action: `The worker (${returned.reserved_for}) claims it again with task_claim and resubmits with task_complete.`,
            }
          : {
              tool: 'task_list',
              action: 'The task is open to every member again.',
              arguments: { ...inCampaign, status: 'OPEN' },
            },
        { tool: 'events_watch', action: 'Follow the rework on the ledger.', arguments: inCampaign },
      ],
    };
  },
});
