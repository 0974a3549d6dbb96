import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import {
  activateForCampaigns,
  type Caller,
  enqueueToolsChanged,
  findAgent,
  guestBound,
  inactiveReason,
} from '../../identity/index.ts';
import { type Actor, appendEvent } from '../core/ledger.ts';
import {
  actorOf,
  type CampaignRow,
  type MemberRole,
  type Membership,
  setDefaultCampaign,
} from '../core/member.ts';
import { ownerActorId } from '../core/task-repo.ts';
import { requireTakingNew } from '../errors.ts';
import * as repo from './members-repo.ts';

/** Membership moves: invitations (agent and owner sides), joining and applying. */

/** Who invites: an active coordinator, or the owner of record from the console. */
export type Inviter = Membership | { campaign: CampaignRow; ownerId: string; role: 'OWNER' };

/**
 * A coordinator, or the owner of record from the console, invites an agent. The same owner's
 * active agents are INVITED and accept with campaign_join; another owner's, and inert ones, wait
 * for their owner's acceptance in the console first. An applicant (APPLIED) is admitted at once:
 * it asked, and its owner activated it.
 */
export async function inviteAgent(
  ex: Executor,
  inviter: Inviter,
  target: { agentId: string; role: MemberRole },
  now: Date,
) {
  const campaign = inviter.campaign;
  const actor: Actor =
    inviter.role === 'OWNER' ? { ownerId: inviter.ownerId, role: 'OWNER' } : actorOf(inviter);
  const agent = await findAgent(ex, target.agentId);
  if (!agent || agent.status === 'REVOKED') {
    throw new DomainError(
      'NOT_FOUND',
      `No active agent ${target.agentId} exists.`,
      { agent_id: target.agentId },
      inviter.role === 'OWNER'
        ? {}
        : {
            next: 'Check the agent_id (agent_directory lists agents you may invite), then call campaign_invite again.',
            alternatives: [{ tool: 'agent_directory', action: 'Find the agent to invite.' }],
          },
    );
  }
  // A guest identity is bound to the campaign its matching request joined.
  if (agent.guestCampaignId && agent.guestCampaignId !== campaign.id) throw guestBound(agent.id);
  if (agent.status !== 'ACTIVE') {
    throw new DomainError('CONFLICT', `Agent ${target.agentId} is suspended; it cannot be invited.`, {
      agent_id: target.agentId,
    });
  }
  const existing = await repo.lockMember(ex, campaign.id, agent.id);
  if (existing?.status === 'ACTIVE') {
    if (existing.role === target.role) {
      return { agent_id: agent.id, role: existing.role, membership: 'ACTIVE', changed: false };
    }
    // A coordinator changes an active member's role (promotion or step-down).
    await repo.upsertMember(ex, { ...existing, role: target.role, updatedAt: now });
    await appendEvent(
      ex,
      campaign.id,
      {
        kind: 'MEMBER_ROLE_CHANGED',
        actor,
        subjectAgentId: agent.id,
        payload: { agent_id: agent.id, before: existing.role, after: target.role },
      },
      now,
    );
    await enqueueToolsChanged(ex, agent.id, now);
    return { agent_id: agent.id, role: target.role, membership: 'ACTIVE', changed: true };
  }
  // A role change goes on in a stopping campaign; a new member or invitation does not.
  requireTakingNew(campaign, inviter.role === 'OWNER' ? 'OWNER' : 'AGENT');
  // Only an owner activates an identity (SPEC States): an agent's invitation of another owner's
  // identity, or of an inert one (its own owner's included), waits for that identity's owner.
  // The owner of record inviting its own inert identity is that activation (mode CAMPAIGN).
  const byOwnOwner = inviter.role === 'OWNER' && agent.ownerId === inviter.ownerId;
  const status =
    existing?.status === 'APPLIED'
      ? 'ACTIVE'
      : agent.ownerId !== campaign.ownerId || (agent.mode === 'NONE' && !byOwnOwner)
        ? 'OWNER_PENDING'
        : 'INVITED';
  if (byOwnOwner) await activateForCampaigns(ex, agent, now);
  await repo.upsertMember(ex, {
    campaignId: campaign.id,
    agentId: agent.id,
    role: target.role,
    status,
    invitedBy: inviter.role === 'OWNER' ? ownerActorId(inviter.ownerId) : inviter.agentId,
    createdAt: existing?.createdAt ?? now,
    joinedAt: status === 'ACTIVE' ? now : null,
    updatedAt: now,
  });
  if (status !== 'OWNER_PENDING') await enqueueToolsChanged(ex, agent.id, now);
  await appendEvent(
    ex,
    campaign.id,
    {
      kind: status === 'ACTIVE' ? 'MEMBER_ADMITTED' : 'MEMBER_INVITED',
      actor,
      subjectAgentId: agent.id,
      payload: { agent_id: agent.id, role: target.role, membership: status },
    },
    now,
  );
  return {
    agent_id: agent.id,
    role: target.role,
    membership: status,
    changed: true,
    next:
      status === 'OWNER_PENDING'
        ? agent.ownerId !== campaign.ownerId
          ? 'The agent belongs to another owner: that owner accepts in the console, then the agent calls campaign_join.'
          : 'The agent is not active: its owner accepts the invitation in the console (which activates it for campaign work), then the agent calls campaign_join.'
        : status === 'INVITED'
          ? 'The agent accepts with campaign_join.'
          : 'The applicant is now an active member.',
  };
}

/** The other owner accepts (or declines) an invitation of one of their agents, from the console. */
export async function decideInvitation(
  ex: Executor,
  ownerId: string,
  campaignId: string,
  agentId: string,
  accept: boolean,
  now: Date,
) {
  const agent = await findAgent(ex, agentId);
  const member = agent && agent.ownerId === ownerId ? await repo.lockMember(ex, campaignId, agentId) : null;
  if (member?.status !== 'OWNER_PENDING') {
    throw new DomainError('NOT_FOUND', 'No invitation of that agent waits for you in that campaign.', {
      campaign_id: campaignId,
      agent_id: agentId,
    });
  }
  const status = accept ? 'INVITED' : 'DECLINED';
  await repo.upsertMember(ex, { ...member, status, updatedAt: now });
  // Accepting is the owner's activation of an inert identity for campaign work.
  if (accept && agent) await activateForCampaigns(ex, agent, now);
  if (accept) await enqueueToolsChanged(ex, agentId, now);
  const actor: Actor = { ownerId, role: 'OWNER' };
  await appendEvent(
    ex,
    campaignId,
    {
      kind: accept ? 'INVITATION_ACCEPTED_BY_OWNER' : 'INVITATION_DECLINED_BY_OWNER',
      actor,
      subjectAgentId: agentId,
      payload: { agent_id: agentId, role: member.role },
    },
    now,
  );
  return { campaign_id: campaignId, agent_id: agentId, membership: status };
}

/**
 * campaign_join: accepts an invitation, joins an OPEN campaign, or applies to the others. Joining
 * makes the campaign the identity's default; calling it as an active member just does that.
 */
export async function joinCampaign(ex: Executor, caller: Caller, campaignId: string, now: Date) {
  const campaign = await repo.findCampaign(ex, campaignId);
  const member = campaign ? await repo.lockMember(ex, campaignId, caller.agent.id) : null;
  if (!campaign) {
    throw new DomainError('NOT_FOUND', `No campaign ${campaignId} exists.`, { campaign_id: campaignId });
  }
  // An active member's join only makes it the default, which a stopping campaign still allows.
  if (campaign.status === 'CLOSED' || (campaign.status === 'STOPPING' && member?.status !== 'ACTIVE')) {
    requireTakingNew(campaign, 'JOINER');
  }
  if (caller.agent.guestCampaignId && caller.agent.guestCampaignId !== campaignId) {
    throw guestBound(caller.agent.id);
  }
  if (member?.status === 'ACTIVE') {
    await setDefaultCampaign(ex, caller.agent.id, campaignId, now);
    return { campaign_id: campaignId, role: member.role, membership: 'ACTIVE', is_default: true };
  }
  if (member?.status === 'OWNER_PENDING' || member?.status === 'APPLIED') {
    throw new DomainError(
      'OWNER_APPROVAL_PENDING',
      member.status === 'OWNER_PENDING'
        ? 'Your owner has not accepted this invitation yet; ask them to accept it in the console.'
        : 'Your application waits for a coordinator of this campaign.',
      { campaign_id: campaignId, membership: member.status },
    );
  }
  const invited = member?.status === 'INVITED';
  // Only an active identity joins or applies (the tool is not offered to any other): its owner
  // activated it, by a mode or by inviting it (SPEC States and transitions).
  const reason = inactiveReason(caller.agent);
  if (reason) {
    throw new DomainError('TOOL_NOT_AVAILABLE', `This identity is not active: ${reason.message}`, {
      campaign_id: campaignId,
      next_step: 'Ask your owner to activate this identity (public reading, or an invitation to a campaign).',
    });
  }
  if (!invited && campaign.participation === 'APPLICATION') {
    await repo.upsertMember(ex, {
      campaignId,
      agentId: caller.agent.id,
      role: 'PARTICIPANT',
      status: 'APPLIED',
      invitedBy: null,
      createdAt: member?.createdAt ?? now,
      joinedAt: null,
      updatedAt: now,
    });
    await appendEvent(
      ex,
      campaignId,
      {
        kind: 'MEMBER_APPLIED',
        actor: { agentId: caller.agent.id, role: 'PARTICIPANT' },
        subjectAgentId: caller.agent.id,
        payload: { agent_id: caller.agent.id },
      },
      now,
    );
    return {
      campaign_id: campaignId,
      membership: 'APPLIED',
      next: 'A coordinator admits applicants with campaign_invite; call campaign_join again afterwards to make it your default.',
    };
  }
  const role: MemberRole = invited ? member.role : 'PARTICIPANT';
  await repo.upsertMember(ex, {
    campaignId,
    agentId: caller.agent.id,
    role,
    status: 'ACTIVE',
    invitedBy: member?.invitedBy ?? null,
    createdAt: member?.createdAt ?? now,
    joinedAt: now,
    updatedAt: now,
  });
  await setDefaultCampaign(ex, caller.agent.id, campaignId, now);
  await enqueueToolsChanged(ex, caller.agent.id, now);
  await appendEvent(
    ex,
    campaignId,
    {
      kind: 'MEMBER_JOINED',
      actor: { agentId: caller.agent.id, role },
      subjectAgentId: caller.agent.id,
      payload: { agent_id: caller.agent.id, role, via: invited ? 'INVITATION' : 'OPEN' },
    },
    now,
  );
  return { campaign_id: campaignId, role, membership: 'ACTIVE', is_default: true };
}
