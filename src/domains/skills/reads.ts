import { and, asc, eq } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import { windowOf } from '../reading/index.ts';
import { type Actor, bytesDeleted, type Reached, reachVersion, requireDeliverable } from './access.ts';
import type { SkillContext } from './context.ts';
import { SKILL_LIMITS } from './limits.ts';
import { buildZip } from './package/index.ts';
import { skillDeliveries, skillVersionFiles } from './tables.ts';

/**
 * Reading a version's files under a context. Every delivery to an identity is recorded as the
 * byte range it carried (and the lease, for a TASK read), which is what READ_BEFORE_COMPLETION
 * counts; the owner looking at its own version delivers nothing.
 */

export type FileRow = typeof skillVersionFiles.$inferSelect;

export async function versionFiles(ex: Executor, versionId: string) {
  return ex
    .select({
      path: skillVersionFiles.path,
      sha256: skillVersionFiles.sha256,
      size: skillVersionFiles.size,
      isText: skillVersionFiles.isText,
    })
    .from(skillVersionFiles)
    .where(eq(skillVersionFiles.versionId, versionId))
    .orderBy(asc(skillVersionFiles.path));
}

async function fileOf(ex: Executor, reached: Reached, path: string): Promise<FileRow & { content: Buffer }> {
  requireDeliverable(reached);
  const [row] = await ex
    .select()
    .from(skillVersionFiles)
    .where(and(eq(skillVersionFiles.versionId, reached.version.id), eq(skillVersionFiles.path, path)));
  if (!row) {
    throw new DomainError(
      'NOT_FOUND',
      `Skill version ${reached.version.id} has no file ${path}.`,
      { version_id: reached.version.id, path },
      { next: 'skill_get lists the version’s files.' },
    );
  }
  // Deleted between the version's row and this read: answered as the deletion it is.
  if (!row.content) throw bytesDeleted(reached.version.id);
  return { ...row, content: row.content };
}

/** Records what a read carried to an identity (never to the owner), under the reach's lease. */
export async function recordDelivery(
  ex: Executor,
  agentId: string | null,
  reached: { leaseId: string | null },
  versionId: string,
  path: string,
  range: [number, number],
  now: Date,
): Promise<void> {
  if (agentId === null || range[1] <= range[0]) return;
  await ex.insert(skillDeliveries).values({
    versionId,
    path,
    agentId,
    leaseId: reached.leaseId,
    byteStart: range[0],
    byteEnd: range[1],
    createdAt: now,
  });
}

/** One character window of a text file (as evidence_get windows), following range.next_offset. */
export async function readTextWindow(
  ex: Executor,
  actor: Actor,
  input: { versionId: string; path: string; context: SkillContext; offset?: number; maxChars?: number },
  now: Date,
) {
  const reached = await reachVersion(ex, actor, input.versionId, input.context, now);
  const file = await fileOf(ex, reached, input.path);
  if (file.isText !== 'TEXT') {
    throw new DomainError(
      'SKILL_FILE_BINARY',
      `${input.path} of ${input.versionId} is not UTF-8 text.`,
      { version_id: input.versionId, path: input.path, size: file.size },
      { alternatives: [{ tool: 'skill_file_bytes_get', action: 'Read it as base64 byte windows.' }] },
    );
  }
  const text = file.content.toString('utf8');
  const w = windowOf(text, { offset: input.offset, maxChars: input.maxChars });
  const start = Buffer.byteLength(text.slice(0, w.offset));
  const end = start + Buffer.byteLength(w.text);
  await recordDelivery(ex, actor.agentId, reached, reached.version.id, input.path, [start, end], now);
  return {
    reached,
    file,
    text: w.text,
    range: {
      offset: w.offset,
      next_offset: w.next_offset,
      total_chars: w.total_chars,
      max_chars: w.max_chars,
    },
  };
}

/** Byte windows of any file, base64-encoded. */
export async function readByteWindow(
  ex: Executor,
  actor: Actor,
  input: { versionId: string; path: string; context: SkillContext; offset?: number; maxBytes?: number },
  now: Date,
) {
  const reached = await reachVersion(ex, actor, input.versionId, input.context, now);
  const file = await fileOf(ex, reached, input.path);
  const start = Math.min(input.offset ?? 0, file.content.length);
  const size = input.maxBytes ?? SKILL_LIMITS.fileBytesWindow.default;
  const end = Math.min(file.content.length, start + size);
  await recordDelivery(ex, actor.agentId, reached, reached.version.id, input.path, [start, end], now);
  return {
    reached,
    file,
    content_base64: file.content.subarray(start, end).toString('base64'),
    range: {
      offset: start,
      next_offset: end < file.content.length ? end : null,
      total_bytes: file.content.length,
      max_bytes: size,
    },
  };
}

/** The whole file's bytes (a download), recorded as delivered in full. */
export async function readWholeFile(
  ex: Executor,
  actor: Actor,
  input: { versionId: string; path: string; context: SkillContext },
  now: Date,
) {
  const reached = await reachVersion(ex, actor, input.versionId, input.context, now);
  const file = await fileOf(ex, reached, input.path);
  await recordDelivery(
    ex,
    actor.agentId,
    reached,
    reached.version.id,
    input.path,
    [0, file.content.length],
    now,
  );
  return { reached, file };
}

/** The version as its deterministic zip, every file recorded as delivered in full. */
export async function readPackage(
  ex: Executor,
  actor: Actor,
  input: { versionId: string; context: SkillContext },
  now: Date,
): Promise<{ reached: Reached; zip: Uint8Array }> {
  const reached = await reachVersion(ex, actor, input.versionId, input.context, now);
  requireDeliverable(reached);
  const zip = await zipOf(ex, reached);
  const rows = await versionFiles(ex, reached.version.id);
  for (const r of rows)
    await recordDelivery(ex, actor.agentId, reached, reached.version.id, r.path, [0, r.size], now);
  return { reached, zip };
}

/** The version's zip, for a caller that already checked access and deliverability. */
export async function zipOf(ex: Executor, reached: Reached): Promise<Uint8Array> {
  const rows = await ex
    .select({ path: skillVersionFiles.path, content: skillVersionFiles.content })
    .from(skillVersionFiles)
    .where(eq(skillVersionFiles.versionId, reached.version.id));
  if (rows.some((r) => r.content === null)) throw bytesDeleted(reached.version.id);
  return buildZip(
    reached.version.name,
    rows.map((r) => ({ path: r.path, bytes: new Uint8Array(r.content ?? Buffer.alloc(0)) })),
  );
}
