import { createHash } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Actor } from '../access.ts';
import { draftNotFound, staleRevision } from '../errors.ts';
import { recordSkillEvent } from '../events.ts';
import {
  checkPath,
  PACKAGE_LIMITS,
  type PackageFile,
  type Problem,
  validatePackage,
} from '../package/index.ts';
import { descriptionOf, newSkillMd, setBody, setFrontmatterField } from '../skill-md.ts';
import { skillDraftFiles, skillDrafts, skills } from '../tables.ts';

/**
 * Drafts (docs/skills.md): the private working copy of a skill. Every edit names the revision it
 * was made against and moves it on by one, so two editors never overwrite each other unseen.
 */

export type DraftRow = typeof skillDrafts.$inferSelect;

export async function createDraft(
  ex: Executor,
  actor: Actor,
  input: { name: string; description?: string | undefined; tags?: string[] | undefined },
  now: Date,
): Promise<DraftRow> {
  const skillId = newId('skl', now);
  await ex.insert(skills).values({
    id: skillId,
    ownerId: actor.ownerId,
    authorAgentId: actor.agentId,
    name: input.name,
    lifecycleStatus: 'ACTIVE',
    createdAt: now,
  });
  const description = input.description ?? '';
  const [draft] = await ex
    .insert(skillDrafts)
    .values({
      id: newId('sdr', now),
      skillId,
      ownerId: actor.ownerId,
      authorAgentId: actor.agentId,
      name: input.name,
      description,
      tags: input.tags ?? [],
      revision: 1,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!draft) throw new Error('draft insert returned nothing');
  await writeFile(ex, draft.id, 'SKILL.md', Buffer.from(newSkillMd(input.name, description)), now);
  await recordSkillEvent(ex, { skillId, kind: 'DRAFT_CREATED', actor, detail: { draft_id: draft.id } }, now);
  return draft;
}

/** The actor's draft: an identity's own, or any of the owner's account; NOT_FOUND otherwise. */
export async function draftOf(ex: Executor, actor: Actor, draftId: string, lock = false): Promise<DraftRow> {
  const query = ex.select().from(skillDrafts).where(eq(skillDrafts.id, draftId));
  const [row] = lock ? await query.for('update') : await query;
  if (!row || !mayEdit(actor, row)) throw draftNotFound(draftId);
  return row;
}

function mayEdit(actor: Actor, draft: DraftRow): boolean {
  if (draft.ownerId !== actor.ownerId) return false;
  return actor.agentId === null || draft.authorAgentId === actor.agentId;
}

/** The draft locked for an edit at `revision`; SKILL_DRAFT_REVISION_STALE when it moved on. */
export async function draftForEdit(ex: Executor, actor: Actor, draftId: string, revision: number) {
  const draft = await draftOf(ex, actor, draftId, true);
  if (draft.revision !== revision) throw staleRevision(draftId, revision, draft.revision);
  return draft;
}

/** Moves the draft to its next revision (after an edit), with fields that changed. */
export async function bumpRevision(
  ex: Executor,
  draft: DraftRow,
  now: Date,
  set: Partial<Pick<DraftRow, 'description' | 'tags'>> = {},
): Promise<number> {
  const revision = draft.revision + 1;
  await ex
    .update(skillDrafts)
    .set({ ...set, revision, updatedAt: now })
    .where(eq(skillDrafts.id, draft.id));
  return revision;
}

export async function draftFiles(ex: Executor, draftId: string): Promise<PackageFile[]> {
  const rows = await ex
    .select({ path: skillDraftFiles.path, content: skillDraftFiles.content })
    .from(skillDraftFiles)
    .where(eq(skillDraftFiles.draftId, draftId))
    .orderBy(asc(skillDraftFiles.path));
  return rows.map((r) => ({ path: r.path, bytes: new Uint8Array(r.content) }));
}

/** The files without their bytes, for listings. */
export async function draftFileList(ex: Executor, draftId: string) {
  const rows = await ex
    .select({ path: skillDraftFiles.path, size: skillDraftFiles.size, content: skillDraftFiles.content })
    .from(skillDraftFiles)
    .where(eq(skillDraftFiles.draftId, draftId))
    .orderBy(asc(skillDraftFiles.path));
  return rows.map((r) => ({
    path: r.path,
    size: r.size,
    sha256: createHash('sha256').update(r.content).digest('hex'),
  }));
}

export async function readDraftFile(ex: Executor, draftId: string, path: string): Promise<Buffer | null> {
  const [row] = await ex
    .select({ content: skillDraftFiles.content })
    .from(skillDraftFiles)
    .where(and(eq(skillDraftFiles.draftId, draftId), eq(skillDraftFiles.path, path)));
  return row?.content ?? null;
}

/**
 * Puts one file, refusing what could never be part of a valid package: a path that breaks the
 * format's rules (traversal, absolute, outside the layout), a file over the size cap, or a
 * package that would pass its byte or file cap. Other problems are left for skill_draft_validate.
 */
export async function putFile(
  ex: Executor,
  actor: Actor,
  input: { draftId: string; path: string; bytes: Buffer; revision: number },
  now: Date,
): Promise<{ revision: number; size: number }> {
  const draft = await draftForEdit(ex, actor, input.draftId, input.revision);
  refuseProblem(checkPath(input.path));
  await refuseOverCaps(ex, draft.id, input.path, input.bytes.length);
  await writeFile(ex, draft.id, input.path, input.bytes, now);
  const description = input.path === 'SKILL.md' ? descriptionOf(input.bytes.toString('utf8')) : undefined;
  const revision = await bumpRevision(ex, draft, now, description !== undefined ? { description } : {});
  return { revision, size: input.bytes.length };
}

export async function removeFile(
  ex: Executor,
  actor: Actor,
  input: { draftId: string; path: string; revision: number },
  now: Date,
): Promise<{ revision: number }> {
  const draft = await draftForEdit(ex, actor, input.draftId, input.revision);
  const removed = await ex
    .delete(skillDraftFiles)
    .where(and(eq(skillDraftFiles.draftId, draft.id), eq(skillDraftFiles.path, input.path)))
    .returning({ path: skillDraftFiles.path });
  if (removed.length === 0) {
    throw new DomainError(
      'NOT_FOUND',
      `Draft ${draft.id} has no file ${input.path}; nothing was changed.`,
      { draft_id: draft.id, path: input.path },
      { next: `skill_draft_get(draft_id: "${draft.id}") lists its files.` },
    );
  }
  return {
    revision: await bumpRevision(ex, draft, now, input.path === 'SKILL.md' ? { description: '' } : {}),
  };
}

/** Description, tags and the SKILL.md body of a draft, in one edit. */
export async function updateDraft(
  ex: Executor,
  actor: Actor,
  input: {
    draftId: string;
    revision: number;
    description?: string | undefined;
    tags?: string[] | undefined;
    instructions?: string | undefined;
  },
  now: Date,
): Promise<{ revision: number }> {
  if (input.description === undefined && input.tags === undefined && input.instructions === undefined) {
    throw new DomainError('VALIDATION_FAILED', 'Nothing to change: send description, tags or instructions.', {
      detail: [{ loc: ['arguments'], msg: 'one of description, tags, instructions', type: 'missing' }],
    });
  }
  const draft = await draftForEdit(ex, actor, input.draftId, input.revision);
  if (input.description !== undefined || input.instructions !== undefined) {
    const current = (await readDraftFile(ex, draft.id, 'SKILL.md'))?.toString('utf8');
    let md = current ?? newSkillMd(draft.name, input.description ?? draft.description);
    if (input.description !== undefined)
      md = setFrontmatterField(md, draft.name, 'description', input.description);
    if (input.instructions !== undefined) md = setBody(md, draft.name, input.instructions);
    const bytes = Buffer.from(md);
    await refuseOverCaps(ex, draft.id, 'SKILL.md', bytes.length);
    await writeFile(ex, draft.id, 'SKILL.md', bytes, now);
  }
  const set: Partial<Pick<DraftRow, 'description' | 'tags'>> = {};
  if (input.description !== undefined) set.description = input.description;
  if (input.tags !== undefined) set.tags = input.tags;
  return { revision: await bumpRevision(ex, draft, now, set) };
}

/** Every violation of the Agent Skills format in the draft as it is now. */
export async function validateDraft(ex: Executor, draft: DraftRow): Promise<Problem[]> {
  return validatePackage(draft.name, await draftFiles(ex, draft.id));
}

async function writeFile(ex: Executor, draftId: string, path: string, bytes: Buffer, now: Date) {
  await ex
    .insert(skillDraftFiles)
    .values({ draftId, path, content: bytes, size: bytes.length, updatedAt: now })
    .onConflictDoUpdate({
      target: [skillDraftFiles.draftId, skillDraftFiles.path],
      set: { content: bytes, size: bytes.length, updatedAt: now },
    });
}

/** Refuses a file that would pass the per-file cap, or take the package past its byte or file cap. */
async function refuseOverCaps(ex: Executor, draftId: string, path: string, size: number): Promise<void> {
  if (size > PACKAGE_LIMITS.fileBytes) {
    refuseProblem({
      path: path,
      rule: 'FILE_TOO_LARGE',
      message: `A file may hold at most ${PACKAGE_LIMITS.fileBytes} bytes; this one has ${size}.`,
    });
  }
  const [totals] = await ex
    .select({
      bytes: sql<number>`coalesce(sum(${skillDraftFiles.size}) filter (where ${skillDraftFiles.path} <> ${path}), 0)::int`,
      files: sql<number>`count(*) filter (where ${skillDraftFiles.path} <> ${path})::int`,
    })
    .from(skillDraftFiles)
    .where(eq(skillDraftFiles.draftId, draftId));
  if ((totals?.bytes ?? 0) + size > PACKAGE_LIMITS.packageBytes) {
    refuseProblem({
      path: '',
      rule: 'PACKAGE_TOO_LARGE',
      message: `A package may hold at most ${PACKAGE_LIMITS.packageBytes} bytes in all.`,
    });
  }
  if ((totals?.files ?? 0) + 1 > PACKAGE_LIMITS.files) {
    refuseProblem({
      path: '',
      rule: 'TOO_MANY_FILES',
      message: `A package may hold at most ${PACKAGE_LIMITS.files} files.`,
    });
  }
}

function refuseProblem(problem: Problem | null): void {
  if (!problem) return;
  throw new DomainError(
    'VALIDATION_FAILED',
    `${problem.path || 'The package'}: ${problem.message} Nothing was changed.`,
    { problems: [problem], detail: [{ loc: ['path'], msg: problem.message, type: problem.rule }] },
    { next: 'Correct the file (path, size) and put it again with the same revision.' },
  );
}
