import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import type { Actor, VersionRow } from './access.ts';
import { draftFiles, draftForEdit } from './drafts/drafts.ts';
import { recordSkillEvent } from './events.ts';
import { buildZip, isText, readMeta, validatePackage } from './package/index.ts';
import { skills, skillVersionFiles, skillVersions } from './tables.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * Publishes the draft at `revision` as the skill's next immutable version: only a valid package,
 * and only the revision the caller looked at. The package hash is that of the deterministic zip
 * the download serves, so anyone can check a download against it. A revision already published
 * answers its version again (the draft row lock orders concurrent publishes), so a retry never
 * makes a second, identical version.
 */
export async function publishVersion(
  ex: Executor,
  actor: Actor,
  input: { draftId: string; revision: number },
  now: Date,
): Promise<VersionRow> {
  const draft = await draftForEdit(ex, actor, input.draftId, input.revision);
  const [skill] = await ex.select().from(skills).where(eq(skills.id, draft.skillId));
  if (!skill) throw new Error(`skill ${draft.skillId} of draft ${draft.id} is missing`);
  // The same revision is the same package: publishing it again answers the version it became.
  const [already] = await ex
    .select()
    .from(skillVersions)
    .where(and(eq(skillVersions.skillId, skill.id), eq(skillVersions.publishedFromRevision, draft.revision)));
  if (already) return already;
  if (skill.lifecycleStatus === 'ARCHIVED') {
    throw new DomainError(
      'SKILL_ARCHIVED',
      `Skill ${skill.id} is archived; no new version is published from it.`,
      { skill_id: skill.id },
      { next: 'Create a new draft with skill_draft_create and publish from it.' },
    );
  }
  const files = await draftFiles(ex, draft.id);
  const problems = validatePackage(draft.name, files);
  const meta = problems.length === 0 ? readMeta(files) : null;
  if (!meta) {
    throw new DomainError(
      'SKILL_DRAFT_INVALID',
      `Draft ${draft.id} at revision ${draft.revision} is not a valid Agent Skills package (${problems.length} problem(s)); nothing was published.`,
      { draft_id: draft.id, revision: draft.revision, problems },
      {
        next: `Fix the problems listed in details.problems, then call skill_version_publish again with the new revision.`,
        alternatives: [{ tool: 'skill_draft_validate', action: 'Check the draft again after your fixes.' }],
      },
    );
  }
  const zip = buildZip(draft.name, files);
  const [counted] = await ex
    .update(skills)
    .set({ versionCount: sql`${skills.versionCount} + 1` })
    .where(eq(skills.id, skill.id))
    .returning({ number: skills.versionCount });
  const [version] = await ex
    .insert(skillVersions)
    .values({
      id: newId('skv', now),
      skillId: skill.id,
      ownerId: draft.ownerId,
      authorAgentId: draft.authorAgentId,
      number: counted?.number ?? 1,
      name: meta.name,
      description: meta.description,
      license: meta.license,
      compatibility: meta.compatibility,
      metadata: meta.metadata,
      allowedTools: meta.allowedTools,
      tags: draft.tags,
      packageSha256: sha256(zip),
      totalBytes: files.reduce((n, f) => n + f.bytes.length, 0),
      fileCount: files.length,
      status: 'AVAILABLE',
      publishedFromRevision: draft.revision,
      createdAt: now,
    })
    .returning();
  if (!version) throw new Error('version insert returned nothing');
  await ex.insert(skillVersionFiles).values(
    files.map((f) => ({
      versionId: version.id,
      path: f.path,
      sha256: sha256(f.bytes),
      size: f.bytes.length,
      isText: isText(f.bytes) ? ('TEXT' as const) : ('BINARY' as const),
      content: Buffer.from(f.bytes),
    })),
  );
  await recordSkillEvent(
    ex,
    {
      skillId: skill.id,
      versionId: version.id,
      kind: 'VERSION_PUBLISHED',
      actor,
      detail: {
        number: version.number,
        package_sha256: version.packageSha256,
        draft_revision: draft.revision,
      },
    },
    now,
  );
  return version;
}
