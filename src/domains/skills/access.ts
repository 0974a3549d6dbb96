import { and, eq, isNull, sql } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import type { ArenaCaller } from '../arena/index.ts';
import { activeRole, campaignForSkills, taskForSkills } from '../campaigns/index.ts';
import { arenaPackaged, arenaStandingOf } from './arena/access.ts';
import { contextString, OWN, type SkillContext } from './context.ts';
import { campaignSkills, skillGrants, skillVersions, taskSkills } from './tables.ts';

/**
 * Who sees which version (docs/skills.md): every read names a context and is checked here
 * against the database, on every call, so a revoked grant or an ended lease takes effect at once.
 */

/** Who acts: an identity (for its owner), or the owner itself (console, owner API). */
export interface Actor {
  ownerId: string;
  agentId: string | null;
  /**
   * The identity's status and Arena activation as loaded for this call: the Arena contexts need
   * them (an owner turning the Arena off stops the next read). Absent, no Arena context reaches.
   */
  arena?: Omit<ArenaCaller, 'id'>;
}

export type VersionRow = typeof skillVersions.$inferSelect;

/** How the actor reaches the version: what decides delivery records and what it may do. */
export type Via = 'OWNER' | 'AUTHOR' | 'GRANT' | 'CAMPAIGN' | 'TASK' | 'ARENA_RUN' | 'ARENA_REVIEW';

export interface Reached {
  version: VersionRow;
  via: Via;
  /** The lease a TASK read is delivered under (READ_BEFORE_COMPLETION counts these). */
  leaseId: string | null;
}

/** The version as the actor may reach it in the context; SKILL_CONTEXT_DENIED otherwise. */
export async function reachVersion(
  ex: Executor,
  actor: Actor,
  versionId: string,
  context: SkillContext,
  now: Date,
): Promise<Reached> {
  const [version] = await ex.select().from(skillVersions).where(eq(skillVersions.id, versionId));
  // A missing version is answered like one the context does not give: the answer never tells a
  // stranger whether an id exists.
  if (!version) throw contextDenied(versionId, context);
  const via = await reachVia(ex, actor, version, context, now);
  if (!via) throw contextDenied(versionId, context);
  return { version, ...via };
}

async function reachVia(
  ex: Executor,
  actor: Actor,
  version: VersionRow,
  context: SkillContext,
  now: Date,
): Promise<{ via: Via; leaseId: string | null } | null> {
  switch (context.scope) {
    case 'OWN': {
      if (actor.agentId === null)
        return version.ownerId === actor.ownerId ? { via: 'OWNER', leaseId: null } : null;
      if (version.authorAgentId === actor.agentId) return { via: 'AUTHOR', leaseId: null };
      return (await liveGrant(ex, version.id, actor.agentId)) ? { via: 'GRANT', leaseId: null } : null;
    }
    case 'CAMPAIGN': {
      if (!(await inCampaign(ex, actor, context.campaign_id))) return null;
      const [entry] = await ex
        .select({ id: campaignSkills.id })
        .from(campaignSkills)
        .where(
          and(
            eq(campaignSkills.campaignId, context.campaign_id),
            eq(campaignSkills.versionId, version.id),
            eq(campaignSkills.state, 'ACCEPTED'),
          ),
        );
      return entry ? { via: 'CAMPAIGN', leaseId: null } : null;
    }
    case 'TASK': {
      const lease = await taskStanding(ex, actor, context.task_id, now);
      if (lease === false) return null;
      const [binding] = await ex
        .select({ id: taskSkills.id })
        .from(taskSkills)
        .where(
          and(
            eq(taskSkills.taskId, context.task_id),
            eq(taskSkills.versionId, version.id),
            isNull(taskSkills.detachedAt),
          ),
        );
      return binding ? { via: 'TASK', leaseId: lease } : null;
    }
    case 'ARENA_RUN':
    case 'ARENA_REVIEW': {
      const standing = await arenaStandingOf(ex, actor, context, now);
      if (!standing || !(await arenaPackaged(ex, standing, version.id))) return null;
      // Delivered like OWN and CAMPAIGN reads: recorded for the identity, under no lease.
      return { via: context.scope, leaseId: null };
    }
  }
}

/** Whether the actor may read the campaign's library: an active member, or the campaign's owner. */
export async function inCampaign(ex: Executor, actor: Actor, campaignId: string): Promise<boolean> {
  if (actor.agentId === null) {
    const campaign = await campaignForSkills(ex, campaignId);
    return campaign?.ownerId === actor.ownerId;
  }
  return (await activeRole(ex, campaignId, actor.agentId)) !== null;
}

/**
 * The actor's standing on a task: the live lease id when it holds it, null for the campaign's
 * owner (who may look, but whose reads are no delivery), false for anyone else.
 */
export async function taskStanding(
  ex: Executor,
  actor: Actor,
  taskId: string,
  now: Date,
): Promise<string | null | false> {
  const task = await taskForSkills(ex, taskId, now);
  if (!task) return false;
  if (actor.agentId === null) return task.ownerId === actor.ownerId ? null : false;
  return task.lease?.agentId === actor.agentId ? task.lease.id : false;
}

export async function liveGrant(ex: Executor, versionId: string, agentId: string): Promise<boolean> {
  const [row] = await ex
    .select({ id: skillGrants.id })
    .from(skillGrants)
    .where(
      and(
        eq(skillGrants.versionId, versionId),
        eq(skillGrants.granteeAgentId, agentId),
        isNull(skillGrants.revokedAt),
      ),
    );
  return row !== undefined;
}

/** SQL: the versions an identity reaches under OWN (its own, or granted to it and not revoked). */
export function ownVersionsSql(actor: Actor) {
  if (actor.agentId === null) return eq(skillVersions.ownerId, actor.ownerId);
  return sql`(${skillVersions.authorAgentId} = ${actor.agentId} or exists (select 1 from ${skillGrants}
    where ${skillGrants.versionId} = ${skillVersions.id} and ${skillGrants.granteeAgentId} = ${actor.agentId}
    and ${skillGrants.revokedAt} is null))`;
}

/**
 * Refuses a delivery of file bytes: a blocked version reaches only its owner (to inspect it), and
 * deleted bytes reach no one.
 */
export function requireDeliverable(reached: Reached): void {
  const v = reached.version;
  if (v.bytesDeletedAt) throw bytesDeleted(v.id, v.bytesDeletedAt);
  if (v.status === 'BLOCKED' && reached.via !== 'OWNER' && reached.via !== 'AUTHOR') {
    throw new DomainError('SKILL_BLOCKED', `Skill version ${v.id} is blocked and no longer delivered.`, {
      version_id: v.id,
      reason: v.blockReason,
    });
  }
}

export function bytesDeleted(versionId: string, at?: Date): DomainError {
  return new DomainError(
    'SKILL_BYTES_DELETED',
    `The file bytes of ${versionId} were deleted for privacy; its hashes and history remain.`,
    { version_id: versionId, ...(at ? { bytes_deleted_at: at.toISOString() } : {}) },
  );
}

function contextDenied(versionId: string, context: SkillContext): DomainError {
  const ctx = contextString(context);
  const why: Record<SkillContext['scope'], string> = {
    OWN: 'it is neither yours nor granted to you',
    CAMPAIGN: 'it is not in that campaign’s library, or you are not an active member of the campaign',
    TASK: 'it is not attached to that task, or you do not hold the task’s current lease',
    ARENA_RUN:
      'it is not shared to that run’s challenge version, or the run is not one you started that still takes work (with the Arena on for you)',
    ARENA_REVIEW:
      'it is not shared to the published run’s challenge version, or you took part in that run (or the Arena is off for you)',
  };
  // The alternative must be one that succeeds for this caller: listing under the same context
  // would be refused too when the caller has no standing there, so it is the OWN list.
  return new DomainError(
    'SKILL_CONTEXT_DENIED',
    `The context ${ctx} does not give you skill version ${versionId}: ${why[context.scope]}.`,
    { version_id: versionId, context },
    {
      next: `skill_list(context: ${JSON.stringify(contextString(OWN))}) lists the versions yours or granted to you; a campaign's, task's or Arena run's skills list under its context while you are a member, hold the task's lease or the run goes on.`,
      alternatives: [
        {
          tool: 'skill_list',
          action: 'List the versions yours or granted to you.',
          arguments: { context: contextString(OWN) },
        },
      ],
    },
  );
}
