import { and, eq } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import {
  activeRole,
  type CampaignActor,
  campaignForSkills,
  lockTaskForSkills,
  type SkillsCampaign,
  type SkillsTask,
  taskForSkills,
} from '../campaigns/index.ts';
import { type Actor, liveGrant, type VersionRow } from './access.ts';
import { versionNotFound } from './errors.ts';
import { requireActiveSkill } from './grants.ts';
import { campaignSkills, skillVersions } from './tables.ts';

/**
 * Who may change a campaign's library or a task's skills, and which versions they may hand on
 * (docs/skills.md): the campaign's owner or an active member, checked on every call; a version
 * of the actor's own owner account, or (for a task) one its campaign's library accepted.
 */

export type Role = 'OWNER' | 'COORDINATOR' | 'PARTICIPANT';

/** Who acts in a campaign, and as what: its owner (console, owner API) or an active member. */
export interface Standing {
  actor: Actor;
  role: Role;
  campaign: SkillsCampaign;
}

/**
 * The actor's standing in the campaign: its owner, or an active member (with the role). A
 * campaign the actor has no part in is refused as if missing; `forChange` also refuses a closed one.
 */
export async function campaignStanding(
  ex: Executor,
  actor: Actor,
  campaignId: string,
  opts: { forChange?: boolean } = {},
): Promise<Standing> {
  const campaign = await campaignForSkills(ex, campaignId);
  let role: Role | null = null;
  if (campaign && actor.agentId === null) role = campaign.ownerId === actor.ownerId ? 'OWNER' : null;
  else if (campaign && actor.agentId !== null) role = await activeRole(ex, campaign.id, actor.agentId);
  if (!campaign || !role) throw noCampaign(campaignId, actor);
  if (opts.forChange && !campaign.open) {
    throw new DomainError(
      'CAMPAIGN_CLOSED',
      `Campaign ${campaignId} is closed; its library no longer changes.`,
      {
        campaign_id: campaignId,
      },
    );
  }
  return { actor, role, campaign };
}

function noCampaign(campaignId: string, actor: Actor): DomainError {
  if (actor.agentId === null) {
    return new DomainError('NOT_FOUND', `No campaign ${campaignId} of yours.`, { campaign_id: campaignId });
  }
  return new DomainError(
    'NOT_A_MEMBER',
    `This identity is not an active member of campaign ${campaignId} (or there is no such campaign).`,
    { campaign_id: campaignId },
    {
      next: 'See the campaigns you are in with campaign_list; join one with campaign_join if it is open or you were invited.',
      alternatives: [{ tool: 'campaign_list', action: 'List the campaigns you are a member of.' }],
    },
  );
}

/** The campaign ledger's actor for a standing. */
export function ledgerActor(s: { actor: Actor; role: Role }): CampaignActor {
  if (s.role === 'OWNER' || s.actor.agentId === null) return { ownerId: s.actor.ownerId, role: 'OWNER' };
  return { agentId: s.actor.agentId, role: s.role };
}

/** Whether the standing decides for the campaign (a coordinator, or its owner). */
export const decides = (s: { role: Role }) => s.role === 'OWNER' || s.role === 'COORDINATOR';

export function roleRequired(campaignId: string, action: string, role: Role): DomainError {
  return new DomainError(
    'ROLE_REQUIRED',
    `Only a coordinator of campaign ${campaignId} (or its owner) may ${action}.`,
    { campaign_id: campaignId, required_role: 'COORDINATOR', your_role: role },
  );
}

/** Refuses new distribution (a proposal, an acceptance, an attachment) of a version no longer deliverable. */
export async function requireDistributable(ex: Executor, version: VersionRow): Promise<void> {
  await requireActiveSkill(ex, version);
  if (version.status === 'BLOCKED') {
    throw new DomainError(
      'SKILL_BLOCKED',
      `Skill version ${version.id} is blocked; it is not newly proposed, accepted or attached.`,
      { version_id: version.id },
    );
  }
  if (version.bytesDeletedAt) {
    throw new DomainError(
      'SKILL_BYTES_DELETED',
      `The file bytes of ${version.id} were deleted for privacy; it is not newly proposed, accepted or attached.`,
      { version_id: version.id },
    );
  }
}

/** The version, if the actor's owner account may distribute it; the right refusal otherwise. */
export async function distributableVersion(
  ex: Executor,
  actor: Actor,
  versionId: string,
): Promise<VersionRow> {
  const [version] = await ex.select().from(skillVersions).where(eq(skillVersions.id, versionId));
  if (!version) throw versionNotFound(versionId);
  if (version.ownerId !== actor.ownerId) {
    // A grantee may read it but not pass it on; anyone else may not even know of it.
    if (actor.agentId !== null && (await liveGrant(ex, version.id, actor.agentId))) {
      throw new DomainError(
        'SKILL_CONTEXT_DENIED',
        `Skill version ${versionId} was granted to you to read; only identities of its owner's account may distribute it to a campaign.`,
        { version_id: versionId, access: 'GRANT' },
        {
          next: 'Ask the version’s owner to propose it, or publish a skill of your own with skill_draft_create and skill_version_publish.',
          alternatives: [{ tool: 'skill_draft_create', action: 'Write a skill of your own.' }],
        },
      );
    }
    throw versionNotFound(versionId);
  }
  await requireDistributable(ex, version);
  return version;
}

export interface TaskStanding {
  actor: Actor;
  role: Role;
  task: SkillsTask;
}

/**
 * The actor's standing on the task: the campaign's owner, or an active member of its campaign.
 * A task the actor has no part in is refused as if missing.
 */
export async function taskStandingOf(
  ex: Executor,
  actor: Actor,
  taskId: string,
  now: Date,
): Promise<TaskStanding> {
  const task = await taskForSkills(ex, taskId, now);
  let role: Role | null = null;
  if (task && actor.agentId === null) role = task.ownerId === actor.ownerId ? 'OWNER' : null;
  else if (task && actor.agentId !== null) role = await activeRole(ex, task.campaignId, actor.agentId);
  if (!task || !role) {
    throw new DomainError(
      'NOT_FOUND',
      actor.agentId === null
        ? `No task ${taskId} of yours.`
        : `No task ${taskId} in a campaign you are an active member of.`,
      { task_id: taskId },
      actor.agentId === null
        ? {}
        : {
            next: 'See your campaigns with campaign_list and their tasks with task_list.',
            alternatives: [{ tool: 'campaign_list', action: 'List the campaigns you are a member of.' }],
          },
    );
  }
  return { actor, role, task };
}

/** Standing to change the task's attachments: its creator, a coordinator, or the owner; campaign open. */
export async function taskStandingForChange(
  ex: Executor,
  actor: Actor,
  taskId: string,
  now: Date,
): Promise<TaskStanding> {
  const s = await taskStandingOf(ex, actor, taskId, now);
  // One change of the task's skills at a time: the 20-binding cap is counted, then inserted.
  await lockTaskForSkills(ex, s.task.id);
  const creator = actor.agentId !== null && s.task.createdBy === actor.agentId;
  if (!decides(s) && !creator) {
    throw new DomainError(
      'ROLE_REQUIRED',
      `Only the creator of task ${taskId} or a coordinator of its campaign may change its skills.`,
      { task_id: taskId, campaign_id: s.task.campaignId, required_role: 'COORDINATOR', your_role: s.role },
    );
  }
  const campaign = await campaignForSkills(ex, s.task.campaignId);
  if (!campaign?.open) {
    throw new DomainError(
      'CAMPAIGN_CLOSED',
      `Campaign ${s.task.campaignId} is closed; its tasks’ skills no longer change.`,
      {
        campaign_id: s.task.campaignId,
      },
    );
  }
  return s;
}

/** The version, if the task's campaign library accepted it or it is of the actor's own account. */
export async function attachableVersion(
  ex: Executor,
  s: TaskStanding,
  versionId: string,
): Promise<VersionRow> {
  const [version] = await ex.select().from(skillVersions).where(eq(skillVersions.id, versionId));
  if (!version) throw versionNotFound(versionId);
  if (version.ownerId !== s.actor.ownerId) {
    const states = await ex
      .select({ state: campaignSkills.state })
      .from(campaignSkills)
      .where(and(eq(campaignSkills.campaignId, s.task.campaignId), eq(campaignSkills.versionId, version.id)));
    const accepted = states.some((e) => e.state === 'ACCEPTED');
    if (!accepted) {
      const known =
        states.length > 0 || (s.actor.agentId !== null && (await liveGrant(ex, version.id, s.actor.agentId)));
      if (!known) throw versionNotFound(versionId);
      throw new DomainError(
        'SKILL_CONTEXT_DENIED',
        `Skill version ${versionId} is neither in campaign ${s.task.campaignId}’s accepted library nor of your owner’s account, so it cannot be attached to its tasks.`,
        { version_id: versionId, campaign_id: s.task.campaignId },
        {
          next: 'Have it accepted into the library first (its owner’s identity proposes it with campaign_skill_propose; a coordinator decides), or attach a version of your own.',
          alternatives: [
            { tool: 'skill_list', action: 'List the campaign’s accepted library (context CAMPAIGN).' },
          ],
        },
      );
    }
  }
  await requireDistributable(ex, version);
  return version;
}
