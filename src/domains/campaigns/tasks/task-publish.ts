import { eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { type ConditionsInput, completeConditions } from '../core/conditions.ts';
import { type Actor, appendEvent } from '../core/ledger.ts';
import { actorOf, askACoordinator, type CampaignRow, type Membership } from '../core/member.ts';
import { requireActiveAgent } from '../core/task-access.ts';
import { ownerActorId, recordHistory } from '../core/task-repo.ts';
import { campaignNotOwned, requireTakingNew } from '../errors.ts';
import { escrowIfCovered } from '../rewards/escrow.ts';
import { type Reward, requireWithinLimits } from '../rewards/reward-terms.ts';
import { taskRewards } from '../rewards/tables.ts';
import { campaigns, tasks } from '../tables.ts';

/** Publishing tasks (task_publish, and the owner of record from the console). */

export interface PublishInput {
  title: string;
  objective: string;
  acceptance: string;
  conditions: ConditionsInput;
  assigneeId?: string | undefined;
  /** A reward (rewardOf): coordinators and the owner only. */
  reward?: Reward | null | undefined;
}

export interface Published {
  task_id: string;
  version: number;
  status: string;
  /** The reward's status right after publishing, when it has one. */
  reward_status?: 'ESCROWED' | 'AWAITING_FUNDING';
}

/**
 * task_publish by an agent: coordinators always, any active member when the campaign allows
 * agent publishing (SPEC Campaign.allow_agent_publish). Missing condition terms are INCOMPLETE.
 */
export async function publishTask(
  ex: Executor,
  m: Membership,
  input: PublishInput,
  now: Date,
): Promise<Published> {
  if (input.reward && m.role !== 'COORDINATOR') {
    throw new DomainError(
      'ROLE_REQUIRED',
      'Only a coordinator (or the campaign owner, from the console) may publish a task with a reward.',
      { campaign_id: m.campaign.id, required_role: 'COORDINATOR', your_role: m.role },
      {
        next: 'Publish it without reward_points or reward_usd, or ask a coordinator to publish the paid task.',
        alternatives: askACoordinator(m.campaign.id).alternatives,
      },
    );
  }
  if (m.role !== 'COORDINATOR' && !m.campaign.allowAgentPublish) {
    throw new DomainError(
      'ROLE_REQUIRED',
      'This campaign lets only coordinators publish tasks (allow_agent_publish is false).',
      { campaign_id: m.campaign.id, required_role: 'COORDINATOR', your_role: m.role },
      askACoordinator(m.campaign.id),
    );
  }
  return insertTask(
    ex,
    m.campaign,
    { createdBy: m.agentId, createdByOwner: null, actor: actorOf(m) },
    input,
    now,
  );
}

/**
 * Publishing by the owner of record from the console (the owner can always publish). The task's
 * created_by is `owner:<owner id>`; no agent is its creator, so only a coordinator can assign it
 * and nobody edits it over MCP.
 */
export async function publishTaskAsOwner(
  ex: Executor,
  ownerId: string,
  campaignId: string,
  input: PublishInput,
  now: Date,
): Promise<Published> {
  const [campaign] = await ex.select().from(campaigns).where(eq(campaigns.id, campaignId));
  if (campaign?.ownerId !== ownerId) {
    throw campaignNotOwned(campaignId);
  }
  const by = {
    createdBy: ownerActorId(ownerId),
    createdByOwner: ownerId,
    actor: { ownerId, role: 'OWNER' } as const,
  };
  return insertTask(ex, campaign, by, input, now);
}

async function insertTask(
  ex: Executor,
  campaign: CampaignRow,
  by: { createdBy: string; createdByOwner: string | null; actor: Actor },
  input: PublishInput,
  now: Date,
): Promise<Published> {
  // Every way a task is published (by the owner or by a member) meets this one check.
  requireTakingNew(campaign, by.actor.role === 'OWNER' ? 'OWNER' : 'AGENT');
  const conditions = completeConditions(input.conditions);
  if (input.reward) await requireWithinLimits(ex, campaign, conditions, input.reward);
  if (input.assigneeId) {
    const role = by.actor.role;
    const asker =
      role === 'COORDINATOR' || role === 'PARTICIPANT'
        ? { campaign, agentId: by.createdBy, role }
        : undefined;
    await requireActiveAgent(ex, campaign.id, input.assigneeId, asker);
  }
  const id = newId('task', now);
  const fields = {
    title: input.title,
    objective: input.objective,
    acceptance: input.acceptance,
    conditions: conditions as unknown as Record<string, unknown>,
    assigneeId: input.assigneeId ?? null,
  };
  await ex.insert(tasks).values({
    id,
    campaignId: campaign.id,
    createdBy: by.createdBy,
    createdByOwner: by.createdByOwner,
    ...fields,
    status: 'OPEN',
    parentTaskId: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  });
  await recordHistory(ex, {
    taskId: id,
    agentId: by.createdBy,
    kind: 'PUBLISH',
    before: {},
    after: { ...wireFields(fields), status: 'OPEN' },
    version: 1,
    now,
  });
  const rewardStatus = input.reward
    ? await fundAtPublish(ex, campaign, id, input.reward, by, now)
    : undefined;
  await appendEvent(
    ex,
    campaign.id,
    {
      kind: 'TASK_PUBLISHED',
      actor: by.actor,
      taskId: id,
      subjectAgentId: fields.assigneeId,
      payload: {
        task_id: id,
        title: input.title,
        status: 'OPEN',
        assignee_id: fields.assigneeId,
        version: 1,
        ...(input.reward
          ? { reward_currency: input.reward.currency, reward_minor_units: input.reward.amount }
          : {}),
      },
    },
    now,
  );
  if (input.reward && rewardStatus) {
    await appendEvent(
      ex,
      campaign.id,
      {
        kind: rewardStatus === 'ESCROWED' ? 'REWARD_ESCROWED' : 'REWARD_AWAITING_FUNDING',
        actor: by.actor,
        taskId: id,
        payload: {
          task_id: id,
          currency: input.reward.currency,
          minor_units: input.reward.amount,
          fee_minor_units: input.reward.fee,
          status: rewardStatus,
        },
      },
      now,
    );
  }
  return {
    task_id: id,
    version: 1,
    status: 'OPEN',
    ...(rewardStatus ? { reward_status: rewardStatus } : {}),
  };
}

/**
 * The reward row, and its escrow when the campaign owner's balance covers reward and fee; else
 * it waits for the owner to fund it (and the task cannot be claimed until then).
 */
async function fundAtPublish(
  ex: Executor,
  campaign: CampaignRow,
  taskId: string,
  reward: Reward,
  by: { createdBy: string },
  now: Date,
): Promise<'ESCROWED' | 'AWAITING_FUNDING'> {
  const [row] = await ex
    .insert(taskRewards)
    .values({
      taskId,
      campaignId: campaign.id,
      ownerId: campaign.ownerId,
      currency: reward.currency,
      amount: reward.amount,
      fee: reward.fee,
      status: 'AWAITING_FUNDING',
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error(`reward of task ${taskId} was not stored`);
  const actor = by.createdBy.startsWith('owner:') ? by.createdBy : `agent:${by.createdBy}`;
  return (await escrowIfCovered(ex, row, actor, now)) ? 'ESCROWED' : 'AWAITING_FUNDING';
}

/** Task columns under their wire names, for history entries. */
function wireFields(f: {
  title: string;
  objective: string;
  acceptance: string;
  conditions: unknown;
  assigneeId: string | null;
}) {
  return {
    title: f.title,
    objective: f.objective,
    acceptance: f.acceptance,
    conditions: f.conditions,
    assignee_id: f.assigneeId,
  };
}
