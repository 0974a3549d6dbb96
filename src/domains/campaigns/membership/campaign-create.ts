import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { type Caller, enqueueToolsChanged, findAgent, guestBound } from '../../identity/index.ts';
import { type Actor, appendEvent } from '../core/ledger.ts';
import { setDefaultCampaign } from '../core/member.ts';
import { presentCampaign } from '../present.ts';
import { campaignDefaults } from '../tables.ts';
import * as repo from './members-repo.ts';

/** Opening a campaign: by an agent (campaign_create) or by an owner from the console. */

export interface NewCampaign {
  title: string;
  objective: string;
  budget?: { amount: number; unit: 'USD' | 'POINTS' } | undefined;
  scopes?: string[] | undefined;
  allow_agent_publish: boolean;
  visibility: 'SHARED' | 'TASK_SCOPED' | 'BLIND_EXPERIMENT' | 'OWNER_ONLY_RESULTS';
  participation: 'OPEN' | 'APPLICATION';
}

/** The creator's owner becomes owner of record; the creator its first coordinator and default. */
export async function createCampaign(ex: Executor, caller: Caller, input: NewCampaign, now: Date) {
  if (caller.agent.guestRequestId) throw guestBound(caller.agent.id);
  const opened = await openCampaign(
    ex,
    {
      ownerId: caller.agent.ownerId,
      coordinatorId: caller.agent.id,
      actor: { agentId: caller.agent.id, role: 'COORDINATOR' },
      // A first campaign brings the other Campaigns tools into view.
      toolsChange: caller.standing !== 'COORDINATOR',
      alwaysDefault: true,
    },
    input,
    now,
  );
  return {
    campaign_id: opened.campaign_id,
    role: 'COORDINATOR',
    is_default: true,
    campaign: opened.campaign,
  };
}

/**
 * The owner creates a campaign in the console: they are its owner of record and one of their
 * active agents, chosen in the form, its first coordinator (and created_by: a campaign's
 * creator is always an agent). The agent did not ask for it, so the campaign becomes its default
 * only when it has none: an agent at work in another campaign is not switched under its feet.
 */
export async function createCampaignForOwner(
  ex: Executor,
  ownerId: string,
  coordinatorId: string,
  input: NewCampaign,
  now: Date,
) {
  const agent = await findAgent(ex, coordinatorId);
  if (!agent || agent.ownerId !== ownerId) {
    throw new DomainError('NOT_FOUND', `No agent ${coordinatorId} of yours exists.`, {
      agent_id: coordinatorId,
    });
  }
  if (agent.status !== 'ACTIVE') {
    throw new DomainError(
      'CONFLICT',
      `Agent ${coordinatorId} is ${agent.status.toLowerCase()}; choose an active agent as coordinator.`,
      { agent_id: coordinatorId, status: agent.status },
    );
  }
  // A guest identity is bound to the one campaign its matching request joined.
  if (agent.guestRequestId) throw guestBound(agent.id);
  const opened = await openCampaign(
    ex,
    {
      ownerId,
      coordinatorId: agent.id,
      actor: { ownerId, role: 'OWNER' },
      toolsChange: true,
      alwaysDefault: false,
    },
    input,
    now,
  );
  return { ...opened, coordinator_id: agent.id, role: 'COORDINATOR' as const };
}

/** Who opens a campaign: its owner of record, its first coordinator, and who the ledger names. */
interface Opening {
  ownerId: string;
  coordinatorId: string;
  actor: Actor;
  /** Tell the coordinator's open sessions that their tool list changed. */
  toolsChange: boolean;
  /** Make it the coordinator's default even when it has one (the creator asked for it). */
  alwaysDefault: boolean;
}

async function openCampaign(ex: Executor, by: Opening, input: NewCampaign, now: Date) {
  const id = newId('cmp', now);
  const row = {
    id,
    ownerId: by.ownerId,
    createdBy: by.coordinatorId,
    title: input.title,
    objective: input.objective,
    budget: input.budget ?? null,
    scopes: input.scopes ?? [],
    allowAgentPublish: input.allow_agent_publish,
    visibility: input.visibility,
    participation: input.participation,
    status: 'ACTIVE' as const,
    lastSeq: 0,
    allowSameOwnerReview: false,
    tlp: 'TLP:AMBER',
    createdAt: now,
    closedAt: null,
    closeReason: null,
    stoppedAt: null,
    stopReason: null,
  };
  await repo.insertCampaign(ex, row);
  await repo.upsertMember(ex, {
    campaignId: id,
    agentId: by.coordinatorId,
    role: 'COORDINATOR',
    status: 'ACTIVE',
    invitedBy: null,
    createdAt: now,
    joinedAt: now,
    updatedAt: now,
  });
  let isDefault = true;
  if (by.alwaysDefault) await setDefaultCampaign(ex, by.coordinatorId, id, now);
  else isDefault = await setDefaultIfNone(ex, by.coordinatorId, id, now);
  if (by.toolsChange) await enqueueToolsChanged(ex, by.coordinatorId, now);
  await appendEvent(
    ex,
    id,
    { kind: 'CAMPAIGN_CREATED', actor: by.actor, payload: { campaign: presentCampaign(row) } },
    now,
  );
  return { campaign_id: id, is_default: isDefault, campaign: presentCampaign(row) };
}

/** Makes the campaign the agent's default unless it already has one; whether it did. */
async function setDefaultIfNone(ex: Executor, agentId: string, campaignId: string, now: Date) {
  const set = await ex
    .insert(campaignDefaults)
    .values({ agentId, campaignId, updatedAt: now })
    .onConflictDoNothing({ target: campaignDefaults.agentId })
    .returning({ agentId: campaignDefaults.agentId });
  return set.length > 0;
}
