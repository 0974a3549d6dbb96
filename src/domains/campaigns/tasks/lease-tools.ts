import { z } from 'zod';
import { defineOperation } from '../../operations/index.ts';
import { MEMBER_VISIBLE_WHEN, whenMember } from '../policy.ts';
import { agentIdArg, campaignIdArg, leaseIdArg, longText, taskIdArg } from '../schemas.ts';
import type { CampaignCtx } from '../services.ts';
import { expireDueLeases } from './leases.ts';
import { claimTask, delegateTask, heartbeatLease, RELEASE_REASONS, releaseTask } from './task-claims.ts';

/** Working on a task under a lease (docs/campaign-tasks.md). */

const noteArg = longText(2_000).describe(
  'A note for the ledger and the task history (up to 2,000 characters).',
);

const taskClaim = defineOperation({
  name: 'task_claim',
  group: 'Campaigns',
  description:
    'Claim an OPEN task (unreserved, or reserved for you). One claimer wins; the others get TASK_ALREADY_CLAIMED. Returns the lease {lease_id, execution_deadline}: the deadline is claim time plus conditions.time_budget_minutes and never moves.',
  input: z.object({ campaign_id: campaignIdArg.optional(), task_id: taskIdArg }).strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    return claimTask(ctx.ex, ctx.caller, input.task_id, ctx.clock.now(), input.campaign_id);
  },
});

const taskHeartbeat = defineOperation({
  name: 'task_heartbeat',
  group: 'Campaigns',
  description:
    'Tell the campaign you are still working under your current lease. It never extends the execution_deadline; the answer repeats it with seconds_left. An ended or expired lease is refused as LEASE_NOT_CURRENT.',
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      task_id: taskIdArg,
      lease_id: leaseIdArg.describe('Your current lease on the task.'),
    })
    .strict(),
  mutates: false,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    const { database } = ctx.services.campaignDeps;
    const now = ctx.clock.now();
    // A lapsed lease is ended (and its expiry recorded) first, in its own transaction, so the
    // refusal that follows does not roll the expiry back.
    await database.transaction((tx) => expireDueLeases(tx, now, { taskId: input.task_id }));
    return database.transaction((tx) =>
      heartbeatLease(tx, ctx.caller, input.task_id, input.lease_id, now, input.campaign_id),
    );
  },
});

const taskRelease = defineOperation({
  name: 'task_release',
  group: 'Campaigns',
  description:
    'Give up a task you hold, with a reason: REFUSED, OUT_OF_SCOPE, BLOCKED, NO_PROGRESS or OTHER. The task reopens (BLOCKED for reason BLOCKED, until its creator edits or reassigns it) and a reservation for you is cleared. Your notes and evidence stay.',
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      task_id: taskIdArg,
      lease_id: leaseIdArg.describe('Your current lease on the task.'),
      reason: z.enum(RELEASE_REASONS),
      note: noteArg.optional(),
    })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    return releaseTask(
      ctx.ex,
      ctx.caller,
      {
        taskId: input.task_id,
        campaignId: input.campaign_id,
        leaseId: input.lease_id,
        reason: input.reason,
        note: input.note,
      },
      ctx.clock.now(),
    );
  },
});

const taskDelegate = defineOperation({
  name: 'task_delegate',
  group: 'Campaigns',
  description:
    'Hand a task you hold to another active member: your lease ends and the task reopens reserved for them; they claim it for a fresh execution_deadline.',
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      task_id: taskIdArg,
      lease_id: leaseIdArg.describe('Your current lease on the task.'),
      assignee_id: agentIdArg.describe('The member who takes the task over.'),
      note: noteArg.optional(),
    })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    return delegateTask(
      ctx.ex,
      ctx.caller,
      {
        taskId: input.task_id,
        campaignId: input.campaign_id,
        leaseId: input.lease_id,
        assigneeId: input.assignee_id,
        note: input.note,
      },
      ctx.clock.now(),
    );
  },
});

export { taskClaim, taskDelegate, taskHeartbeat, taskRelease };
