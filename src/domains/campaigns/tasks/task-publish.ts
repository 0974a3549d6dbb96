import { eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { campaignClosed, campaignNotOwned } from '../errors.ts';
import { type Actor, appendEvent } from '../ledger/ledger.ts';
import { actorOf, type CampaignRow, type Membership } from '../membership/member.ts';
import { campaigns, tasks } from '../tables.ts';
import { type ConditionsInput, completeConditions } from './conditions.ts';
import { requireActiveAgent } from './task-access.ts';
import { ownerActorId, recordHistory } from './task-repo.ts';

/** Publishing tasks (task_publish, and the owner of record from the console). */

export interface PublishInput {
  title: string;
  objective: string;
  acceptance: string;
  conditions: ConditionsInput;
  assigneeId?: string | undefined;
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
): Promise<{ task_id: string; version: number; status: string }> {
  if (m.role !== 'COORDINATOR' && !m.campaign.allowAgentPublish) {
    throw new DomainError(
      'ROLE_REQUIRED',
      'This campaign lets only coordinators publish tasks (allow_agent_publish is false).',
      { campaign_id: m.campaign.id, required_role: 'COORDINATOR', your_role: m.role },
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
): Promise<{ task_id: string; version: number; status: string }> {
  const [campaign] = await ex.select().from(campaigns).where(eq(campaigns.id, campaignId));
  if (campaign?.ownerId !== ownerId) {
    throw campaignNotOwned(campaignId);
  }
  if (campaign.status !== 'ACTIVE') {
    throw campaignClosed(campaignId);
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
) {
  const conditions = completeConditions(input.conditions);
  if (input.assigneeId) await requireActiveAgent(ex, campaign.id, input.assigneeId);
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
      },
    },
    now,
  );
  return { task_id: id, version: 1, status: 'OPEN' };
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
