import { eq } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import { lockedOne } from '../../storage/locked.ts';
import type { VersionRow } from './access.ts';
import { versionNotFound } from './errors.ts';
import { recordSkillEvent } from './events.ts';
import { skills, skillVersionFiles, skillVersions } from './tables.ts';

/**
 * The moves of a skill's lifecycle and a version's status (docs/skills.md):
 *
 * - skill ACTIVE ⇄ ARCHIVED, by its owner: an archived skill's versions stay delivered where they
 *   already are, but are not newly granted, proposed, attached or published from.
 * - version AVAILABLE ⇄ BLOCKED, by its owner or an operator: a blocked version is delivered to no
 *   one but its owner and author. `blocked_by` says OWNER or OPERATOR; an operator's block is
 *   lifted only by an operator, and an operator may take over an owner's block.
 * - version bytes → deleted, by its owner, once and for good: every file's content is removed,
 *   hashes, sizes, paths and history stay.
 *
 * Every move is idempotent (`changed: false` when nothing moved) and writes its skill event in
 * the transaction of the change.
 */

export type SkillRow = typeof skills.$inferSelect;
export type BlockedBy = 'OWNER' | 'OPERATOR';

/** The owner's version (locked for update when asked); NOT_FOUND for a missing or another owner's one. */
export async function ownedVersion(
  ex: Executor,
  ownerId: string,
  versionId: string,
  lock = false,
): Promise<VersionRow> {
  const query = ex.select().from(skillVersions).where(eq(skillVersions.id, versionId));
  const [version] = lock ? await query.for('update') : await query;
  if (!version || version.ownerId !== ownerId) throw versionNotFound(versionId);
  return version;
}

/** Archives the owner's skill, or brings it back with `unarchive`. */
export async function archiveSkill(
  ex: Executor,
  ownerId: string,
  skillId: string,
  input: { reason?: string | undefined; unarchive?: boolean | undefined },
  now: Date,
): Promise<{ skill: SkillRow; changed: boolean }> {
  const skill = await lockedOne(
    ex.select().from(skills).where(eq(skills.id, skillId)),
    () => new DomainError('NOT_FOUND', `No skill ${skillId} of yours.`, { skill_id: skillId }),
    { only: (s) => s.ownerId === ownerId },
  );
  const target = input.unarchive ? 'ACTIVE' : 'ARCHIVED';
  if (skill.lifecycleStatus === target) return { skill, changed: false };
  const [moved] = await ex
    .update(skills)
    .set(
      target === 'ARCHIVED'
        ? { lifecycleStatus: 'ARCHIVED', archivedAt: now, archiveReason: input.reason ?? null }
        : { lifecycleStatus: 'ACTIVE', archivedAt: null, archiveReason: null },
    )
    .where(eq(skills.id, skill.id))
    .returning();
  if (!moved) throw new Error('skill update returned nothing');
  await recordSkillEvent(
    ex,
    {
      skillId: skill.id,
      kind: target === 'ARCHIVED' ? 'ARCHIVED' : 'UNARCHIVED',
      actor: { ownerId, agentId: null },
      detail: { reason: input.reason ?? null },
    },
    now,
  );
  return { skill: moved, changed: true };
}

/**
 * Blocks a version: its owner (as OWNER) or an operator (as OPERATOR, any version). An operator
 * blocking a version its owner blocked takes the block over, so the owner can no longer lift it.
 */
export async function blockVersion(
  ex: Executor,
  who: { ownerId: string; operator: boolean },
  versionId: string,
  reason: string,
  now: Date,
): Promise<{ version: VersionRow; changed: boolean }> {
  const version = await versionToModerate(ex, who, versionId);
  const by: BlockedBy = version.ownerId === who.ownerId ? 'OWNER' : 'OPERATOR';
  if (version.status === 'BLOCKED' && (version.blockedBy === 'OPERATOR' || by === 'OWNER')) {
    return { version, changed: false };
  }
  const tookOver = version.status === 'BLOCKED';
  const [blocked] = await ex
    .update(skillVersions)
    .set({ status: 'BLOCKED', blockedAt: now, blockedBy: by, blockReason: reason })
    .where(eq(skillVersions.id, version.id))
    .returning();
  if (!blocked) throw new Error('version update returned nothing');
  await recordSkillEvent(
    ex,
    {
      skillId: version.skillId,
      versionId: version.id,
      kind: 'BLOCKED',
      actor: { ownerId: who.ownerId, agentId: null },
      detail: { by, reason, ...(tookOver ? { took_over_owner_block: true } : {}) },
    },
    now,
  );
  return { version: blocked, changed: true };
}

/** Lifts a block: an owner's block by the owner or an operator, an operator's only by an operator. */
export async function unblockVersion(
  ex: Executor,
  who: { ownerId: string; operator: boolean },
  versionId: string,
  reason: string | undefined,
  now: Date,
): Promise<{ version: VersionRow; changed: boolean }> {
  const version = await versionToModerate(ex, who, versionId);
  if (version.status !== 'BLOCKED') return { version, changed: false };
  if (version.blockedBy === 'OPERATOR' && !who.operator) {
    throw new DomainError(
      'SKILL_BLOCKED',
      `Skill version ${version.id} was blocked by the operator; only an operator can lift that block.`,
      { version_id: version.id, blocked_by: 'OPERATOR', reason: version.blockReason },
      { next: 'Ask the operator of this deployment, or publish a corrected version.' },
    );
  }
  const [lifted] = await ex
    .update(skillVersions)
    .set({ status: 'AVAILABLE', blockedAt: null, blockedBy: null, blockReason: null })
    .where(eq(skillVersions.id, version.id))
    .returning();
  if (!lifted) throw new Error('version update returned nothing');
  const by: BlockedBy =
    version.ownerId === who.ownerId && version.blockedBy !== 'OPERATOR' ? 'OWNER' : 'OPERATOR';
  await recordSkillEvent(
    ex,
    {
      skillId: version.skillId,
      versionId: version.id,
      kind: 'UNBLOCKED',
      actor: { ownerId: who.ownerId, agentId: null },
      detail: { by, reason: reason ?? null, was_blocked_by: version.blockedBy },
    },
    now,
  );
  return { version: lifted, changed: true };
}

/** The version, locked, when the actor may block it: its owner, or an operator; NOT_FOUND otherwise. */
async function versionToModerate(
  ex: Executor,
  who: { ownerId: string; operator: boolean },
  versionId: string,
): Promise<VersionRow> {
  return lockedOne(
    ex.select().from(skillVersions).where(eq(skillVersions.id, versionId)),
    () => versionNotFound(versionId),
    { only: (v) => v.ownerId === who.ownerId || who.operator },
  );
}

/**
 * Privacy byte deletion: every file's content of the owner's version becomes NULL; hashes, sizes,
 * paths, the package hash and all history stay. Irreversible; deleting again changes nothing.
 */
export async function deleteVersionBytes(
  ex: Executor,
  ownerId: string,
  versionId: string,
  reason: string | undefined,
  now: Date,
): Promise<{ version: VersionRow; changed: boolean; files: number }> {
  const version = await ownedVersion(ex, ownerId, versionId, true);
  if (version.bytesDeletedAt) return { version, changed: false, files: version.fileCount };
  const cleared = await ex
    .update(skillVersionFiles)
    .set({ content: null })
    .where(eq(skillVersionFiles.versionId, version.id))
    .returning({ path: skillVersionFiles.path });
  const [deleted] = await ex
    .update(skillVersions)
    .set({ bytesDeletedAt: now })
    .where(eq(skillVersions.id, version.id))
    .returning();
  if (!deleted) throw new Error('version update returned nothing');
  await recordSkillEvent(
    ex,
    {
      skillId: version.skillId,
      versionId: version.id,
      kind: 'BYTES_DELETED',
      actor: { ownerId, agentId: null },
      detail: { reason: reason ?? null, files: cleared.length },
    },
    now,
  );
  return { version: deleted, changed: true, files: cleared.length };
}
