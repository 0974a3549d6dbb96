import { and, desc, eq, isNull, type SQL } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import { lockedOne } from '../../storage/locked.ts';
import { findAgent } from '../identity/index.ts';
import type { VersionRow } from './access.ts';
import { recordSkillEvent } from './events.ts';
import { skillGrants, skills, skillVersions } from './tables.ts';

/**
 * Grants (docs/skills.md): a version's owner lets one identity read it under context OWN. A
 * revoke ends it at once: every read checks the grant again.
 */

export type GrantRow = typeof skillGrants.$inferSelect;

export function presentGrant(g: GrantRow) {
  return {
    grant_id: g.id,
    version_id: g.versionId,
    grantee_id: g.granteeAgentId,
    note: g.note,
    status: g.revokedAt ? 'REVOKED' : 'ACTIVE',
    granted_at: g.createdAt.toISOString(),
    revoked_at: g.revokedAt?.toISOString() ?? null,
    revoke_reason: g.revokeReason,
  };
}

export async function grantVersion(
  ex: Executor,
  ownerId: string,
  version: VersionRow,
  input: { granteeId: string; note?: string | undefined },
  now: Date,
): Promise<{ grant: GrantRow; created: boolean }> {
  await requireActiveSkill(ex, version);
  if (version.status === 'BLOCKED') {
    throw new DomainError(
      'SKILL_BLOCKED',
      `Skill version ${version.id} is blocked; it is granted to no one.`,
      {
        version_id: version.id,
      },
    );
  }
  const grantee = await findAgent(ex, input.granteeId);
  if (!grantee || grantee.status === 'REVOKED') {
    throw new DomainError(
      'NOT_FOUND',
      `No identity ${input.granteeId} to grant to.`,
      { grantee_id: input.granteeId },
      { next: 'Name an existing identity (agt_…); the agent can tell you its id from identity_whoami.' },
    );
  }
  const [live] = await ex
    .select()
    .from(skillGrants)
    .where(
      and(
        eq(skillGrants.versionId, version.id),
        eq(skillGrants.granteeAgentId, grantee.id),
        isNull(skillGrants.revokedAt),
      ),
    );
  // Granting twice is the same grant: the answer names the one that stands.
  if (live) return { grant: live, created: false };
  const [grant] = await ex
    .insert(skillGrants)
    .values({
      id: newId('sgr', now),
      versionId: version.id,
      granteeAgentId: grantee.id,
      grantedByOwnerId: ownerId,
      note: input.note ?? null,
      createdAt: now,
    })
    .returning();
  if (!grant) throw new Error('grant insert returned nothing');
  await recordSkillEvent(
    ex,
    {
      skillId: version.skillId,
      versionId: version.id,
      kind: 'GRANTED',
      actor: { ownerId, agentId: null },
      detail: { grant_id: grant.id, grantee_id: grantee.id },
    },
    now,
  );
  return { grant, created: true };
}

/** Revokes the owner's grant; revoking a revoked grant answers it as it is. */
export async function revokeGrant(
  ex: Executor,
  ownerId: string,
  grantId: string,
  reason: string | undefined,
  now: Date,
): Promise<GrantRow> {
  const grant = await lockedOne(
    ex
      .select()
      .from(skillGrants)
      .where(and(eq(skillGrants.id, grantId), eq(skillGrants.grantedByOwnerId, ownerId))),
    () => new DomainError('NOT_FOUND', `No skill grant ${grantId} of yours.`, { grant_id: grantId }),
  );
  if (grant.revokedAt) return grant;
  const [revoked] = await ex
    .update(skillGrants)
    .set({ revokedAt: now, revokeReason: reason ?? null })
    .where(eq(skillGrants.id, grant.id))
    .returning();
  if (!revoked) throw new Error('grant update returned nothing');
  const [version] = await ex
    .select({ skillId: skillVersions.skillId })
    .from(skillVersions)
    .where(eq(skillVersions.id, grant.versionId));
  await recordSkillEvent(
    ex,
    {
      skillId: version?.skillId ?? '',
      versionId: grant.versionId,
      kind: 'GRANT_REVOKED',
      actor: { ownerId, agentId: null },
      detail: { grant_id: grant.id, grantee_id: grant.granteeAgentId, reason: reason ?? null },
    },
    now,
  );
  return revoked;
}

export async function listGrants(ex: Executor, versionId: string, take: number, before: SQL | undefined) {
  return ex
    .select()
    .from(skillGrants)
    .where(and(eq(skillGrants.versionId, versionId), before))
    .orderBy(desc(skillGrants.id))
    .limit(take);
}

/** Refuses new distribution of an archived skill's versions. */
export async function requireActiveSkill(ex: Executor, version: VersionRow): Promise<void> {
  const [skill] = await ex
    .select({ lifecycle: skills.lifecycleStatus })
    .from(skills)
    .where(eq(skills.id, version.skillId));
  if (skill?.lifecycle === 'ARCHIVED') {
    throw new DomainError(
      'SKILL_ARCHIVED',
      `Skill version ${version.id} belongs to an archived skill; it is not newly granted, proposed or attached.`,
      { version_id: version.id, skill_id: version.skillId },
    );
  }
}
