import { and, desc, eq, gte, isNull, lte } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { lockedOne } from '../../../storage/locked.ts';
import { arenaRunTaken } from '../../arena/index.ts';
import { type Actor, type Reached, reachVersion, type VersionRow } from '../access.ts';
import type { SkillContext } from '../context.ts';
import { recordSkillEvent } from '../events.ts';
import { type PageQuery, pageById } from '../paging.ts';
import { distributableVersion } from '../standing.ts';
import { arenaSkillPackages, skillDeliveries, skillVersions } from '../tables.ts';
import { arenaStandingOf } from './access.ts';

/**
 * Skill packages shared to an Arena challenge version (docs/skills.md, "Arena packages"): a version
 * of the sharer's own owner account, one live share per version and challenge version (sharing
 * again answers the one that stands), read in ARENA_RUN of a run of that challenge version and in
 * ARENA_REVIEW of a publication of one, until its owner withdraws it.
 */

export type PackageRow = typeof arenaSkillPackages.$inferSelect;

export function presentPackage(p: PackageRow, v: VersionRow) {
  return {
    package_id: p.id,
    challenge_id: p.challengeId,
    challenge_version: p.challengeVersion,
    version_id: v.id,
    skill_id: v.skillId,
    name: v.name,
    description: v.description,
    number: v.number,
    package_sha256: v.packageSha256,
    version_status: v.status,
    bytes_deleted: v.bytesDeletedAt !== null,
    shared_by_agent_id: p.sharedByAgentId,
    from_run_id: p.fromRunId,
    note: p.note,
    shared_at: p.createdAt.toISOString(),
    status: p.withdrawnAt ? 'WITHDRAWN' : 'LIVE',
    withdrawn_at: p.withdrawnAt?.toISOString() ?? null,
  };
}

/** The ARENA_RUN context of a run of the challenge version, as a caller sends it. */
export const readInRun = (p: { challengeId: string; challengeVersion: number }) =>
  `Identities in a run of ${p.challengeId} v${p.challengeVersion} read it with skill_list / skill_get under {"scope":"ARENA_RUN","run_id":…}, and reviewers of a publication of such a run under {"scope":"ARENA_REVIEW","publication_id":…}.`;

export function packageNotFound(packageId: string): DomainError {
  return new DomainError(
    'NOT_FOUND',
    `No Arena skill package ${packageId} you may see.`,
    { package_id: packageId },
    {
      next: 'Packages are listed by challenge version: GET /v1/arena/challenges/{challenge_id}/versions/{version}/skill-packages (an owner, its own), or skill_list under an Arena context (an identity in a run).',
    },
  );
}

/**
 * Shares the version to the challenge version: the actor's own account's version, still
 * distributable (not archived, blocked or bytes-deleted). The live share, if there is one, is
 * answered instead (`created: false`).
 */
export async function sharePackage(
  ex: Executor,
  actor: Actor,
  input: {
    versionId: string;
    challengeId: string;
    challengeVersion: number;
    fromRunId: string | null;
    note?: string | undefined;
  },
  now: Date,
): Promise<{ pkg: PackageRow; version: VersionRow; created: boolean }> {
  const version = await distributableVersion(ex, actor, input.versionId);
  const live = () =>
    ex
      .select()
      .from(arenaSkillPackages)
      .where(
        and(
          eq(arenaSkillPackages.versionId, version.id),
          eq(arenaSkillPackages.challengeId, input.challengeId),
          eq(arenaSkillPackages.challengeVersion, input.challengeVersion),
          isNull(arenaSkillPackages.withdrawnAt),
        ),
      );
  const [standing] = await live();
  if (standing) return { pkg: standing, version, created: false };
  // The partial unique index decides a race between two shares: the loser answers the winner's.
  const [pkg] = await ex
    .insert(arenaSkillPackages)
    .values({
      id: newId('apkg', now),
      versionId: version.id,
      ownerId: version.ownerId,
      challengeId: input.challengeId,
      challengeVersion: input.challengeVersion,
      fromRunId: input.fromRunId,
      sharedByAgentId: actor.agentId,
      note: input.note ?? null,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!pkg) {
    const [winner] = await live();
    if (!winner) throw new Error('an arena skill package lost a race to a share that is gone');
    return { pkg: winner, version, created: false };
  }
  await recordSkillEvent(
    ex,
    {
      skillId: version.skillId,
      versionId: version.id,
      kind: 'ARENA_SHARED',
      actor,
      detail: {
        package_id: pkg.id,
        challenge_id: pkg.challengeId,
        challenge_version: pkg.challengeVersion,
        from_run_id: pkg.fromRunId,
      },
    },
    now,
  );
  return { pkg, version, created: true };
}

/**
 * The run the identity shares from: one it started (in any state), whose challenge version the
 * package goes to, and in which the version was used, meaning the server delivered some of the
 * version's bytes to this identity between its start of the run and the run's end.
 */
export async function runForShare(ex: Executor, agentId: string, runId: string, versionId: string) {
  const run = await arenaRunTaken(ex, agentId, runId);
  if (!run) {
    throw new DomainError(
      'NOT_FOUND',
      `No Arena run ${runId} that you started.`,
      { run_id: runId },
      {
        next: 'Share from a run you started: its run_id is in arena_start’s answer and capabilities_describe.',
      },
    );
  }
  const [used] = await ex
    .select({ id: skillDeliveries.id })
    .from(skillDeliveries)
    .where(
      and(
        eq(skillDeliveries.agentId, agentId),
        eq(skillDeliveries.versionId, versionId),
        gte(skillDeliveries.createdAt, run.from),
        ...(run.until ? [lte(skillDeliveries.createdAt, run.until)] : []),
      ),
    )
    .limit(1);
  if (!used) {
    throw new DomainError(
      'SKILL_NOT_USED_IN_RUN',
      `Skill version ${versionId} was not used in run ${runId}: none of its files was delivered to you while the run went on.`,
      { version_id: versionId, run_id: runId, run_started_at: run.from.toISOString() },
      {
        next: 'Share a version you read during the run, or ask your owner to share this one (POST /v1/arena/skill-packages).',
        alternatives: [{ tool: 'skill_list', action: 'List the versions yours or granted to you.' }],
      },
    );
  }
  return run;
}

/** Withdraws the owner's package: reads under the Arena contexts stop at once. Idempotent. */
export async function withdrawPackage(ex: Executor, actor: Actor, packageId: string, now: Date) {
  const pkg = await lockedOne(
    ex
      .select()
      .from(arenaSkillPackages)
      .where(and(eq(arenaSkillPackages.id, packageId), eq(arenaSkillPackages.ownerId, actor.ownerId))),
    () => packageNotFound(packageId),
  );
  const version = await versionRow(ex, pkg.versionId);
  if (pkg.withdrawnAt) return { pkg, version, changed: false };
  const [done] = await ex
    .update(arenaSkillPackages)
    .set({ withdrawnAt: now })
    .where(eq(arenaSkillPackages.id, pkg.id))
    .returning();
  await recordSkillEvent(
    ex,
    {
      skillId: version.skillId,
      versionId: version.id,
      kind: 'ARENA_WITHDRAWN',
      actor,
      detail: { package_id: pkg.id, challenge_id: pkg.challengeId, challenge_version: pkg.challengeVersion },
    },
    now,
  );
  return { pkg: done ?? pkg, version, changed: true };
}

async function versionRow(ex: Executor, versionId: string): Promise<VersionRow> {
  const [version] = await ex.select().from(skillVersions).where(eq(skillVersions.id, versionId));
  if (!version) throw new Error(`version ${versionId} of an arena package is missing`);
  return version;
}

/**
 * The live package as the context gives it to the actor: OWN (the owner: its account's versions),
 * or the Arena context of its challenge version. Anything else, withdrawn or unknown, is NOT_FOUND.
 */
export async function reachPackage(
  ex: Executor,
  actor: Actor,
  packageId: string,
  context: SkillContext,
  now: Date,
): Promise<{ pkg: PackageRow; reached: Reached }> {
  const [pkg] = await ex
    .select()
    .from(arenaSkillPackages)
    .where(and(eq(arenaSkillPackages.id, packageId), isNull(arenaSkillPackages.withdrawnAt)));
  if (!pkg) throw packageNotFound(packageId);
  if (context.scope === 'ARENA_RUN' || context.scope === 'ARENA_REVIEW') {
    const standing = await arenaStandingOf(ex, actor, context, now);
    const same =
      standing?.challengeId === pkg.challengeId && standing.challengeVersion === pkg.challengeVersion;
    if (!same) throw packageNotFound(packageId);
  }
  try {
    return { pkg, reached: await reachVersion(ex, actor, pkg.versionId, context, now) };
  } catch (err) {
    if (err instanceof DomainError && err.code === 'SKILL_CONTEXT_DENIED') throw packageNotFound(packageId);
    throw err;
  }
}

/** The owner's live packages of one challenge version, newest first. */
export async function listOwnPackages(
  ex: Executor,
  secret: string,
  ownerId: string,
  challenge: { challengeId: string; challengeVersion: number },
  page: PageQuery,
) {
  return pageById(
    secret,
    ['arena-skill-packages', ownerId, challenge.challengeId, challenge.challengeVersion],
    page,
    async (before, take) =>
      (
        await ex
          .select({ pkg: arenaSkillPackages, version: skillVersions })
          .from(arenaSkillPackages)
          .innerJoin(skillVersions, eq(skillVersions.id, arenaSkillPackages.versionId))
          .where(
            and(
              eq(arenaSkillPackages.ownerId, ownerId),
              eq(arenaSkillPackages.challengeId, challenge.challengeId),
              eq(arenaSkillPackages.challengeVersion, challenge.challengeVersion),
              isNull(arenaSkillPackages.withdrawnAt),
              before,
            ),
          )
          .orderBy(desc(arenaSkillPackages.id))
          .limit(take)
      ).map((r) => ({ id: r.pkg.id, ...r })),
    arenaSkillPackages.id,
  );
}
