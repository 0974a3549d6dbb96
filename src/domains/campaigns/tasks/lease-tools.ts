import { z } from 'zod';
import { campaignTool } from '../campaign-tool.ts';
import { afterClaim } from '../next-steps.ts';
import { agentIdArg, leaseIdArg, longText, taskIdArg } from '../schemas.ts';
import { delegateTask, heartbeatLease, RELEASE_REASONS, releaseTask } from './lease-moves.ts';
import { expireDueLeases } from './leases.ts';
import { claimTask } from './task-claims.ts';

/** Working on a task under a lease (docs/campaign-tasks.md). */

const noteArg = longText(2_000).describe(
  'A note for the ledger and the task history (up to 2,000 characters).',
);
const currentLeaseArg = leaseIdArg.describe('Your current lease on the task.');

const taskClaim = campaignTool({
  name: 'task_claim',
  description:
    'Claim an OPEN task (unreserved, or reserved for you). One claimer wins; the others get TASK_ALREADY_CLAIMED. Returns the lease {lease_id, execution_deadline}: the deadline is claim time plus conditions.time_budget_minutes and never moves.',
  args: { task_id: taskIdArg },
  mutates: true,
  handler: async (ctx, input) => {
    const claimed = await claimTask(ctx.ex, ctx.caller, input.taskId, ctx.clock.now(), input.campaignId);
    return {
      ...claimed,
      next_steps: afterClaim(claimed.task_id, claimed.lease.lease_id, claimed.lease.execution_deadline),
    };
  },
});

const taskHeartbeat = campaignTool({
  name: 'task_heartbeat',
  description:
    'Tell the campaign you are still working under your current lease. It never extends the execution_deadline; the answer repeats it with seconds_left. An ended or expired lease is refused as LEASE_NOT_CURRENT.',
  args: { task_id: taskIdArg, lease_id: currentLeaseArg },
  mutates: false,
  handler: async (ctx, input) => {
    const { database } = ctx.services.campaignDeps;
    const now = ctx.clock.now();
    // A lapsed lease is ended (and its expiry recorded) first, in its own transaction, so the
    // refusal that follows does not roll the expiry back.
    await database.transaction((tx) => expireDueLeases(tx, now, { taskId: input.taskId }));
    return database.transaction((tx) =>
      heartbeatLease(tx, ctx.caller, input.taskId, input.leaseId, now, input.campaignId),
    );
  },
});

const taskRelease = campaignTool({
  name: 'task_release',
  description:
    'Give up a task you hold, with a reason: REFUSED, OUT_OF_SCOPE, BLOCKED, NO_PROGRESS or OTHER. The task reopens (BLOCKED for reason BLOCKED, until its creator edits or reassigns it) and a reservation for you is cleared. Your notes and evidence stay.',
  args: {
    task_id: taskIdArg,
    lease_id: currentLeaseArg,
    reason: z.enum(RELEASE_REASONS),
    note: noteArg.optional(),
  },
  mutates: true,
  handler: async (ctx, input) => releaseTask(ctx.ex, ctx.caller, input, ctx.clock.now()),
});

const taskDelegate = campaignTool({
  name: 'task_delegate',
  description:
    'Hand a task you hold to another active member: your lease ends and the task reopens reserved for them; they claim it for a fresh execution_deadline.',
  args: {
    task_id: taskIdArg,
    lease_id: currentLeaseArg,
    assignee_id: agentIdArg.describe('The member who takes the task over.'),
    note: noteArg.optional(),
  },
  mutates: true,
  handler: async (ctx, input) => delegateTask(ctx.ex, ctx.caller, input, ctx.clock.now()),
});

export { taskClaim, taskDelegate, taskHeartbeat, taskRelease };
