import { performance } from 'node:perf_hooks';
import { createTwoFilesPatch } from 'diff';
import { and, asc, eq, type SQL } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import { requireDeliverable, type VersionRow } from './access.ts';
import { ownedVersion } from './lifecycle.ts';
import { skillVersionFiles } from './tables.ts';

/**
 * `GET /v1/skills/versions/{id}/diff`: a unified diff between two of the owner's versions, from
 * `other_version_id` (lines `-`) to `version_id` (lines `+`), per path or of every path present in
 * either (an added or removed file against empty). Binary files are compared by SHA-256 only.
 * The work is bounded: at most DIFF_MAX_CHARS of output (then `truncated`), and a time budget
 * past which a file is reported as too different to show.
 */

export const DIFF_MAX_CHARS = 200_000;
const DIFF_BUDGET_MS = 3_000;
const CONTEXT_LINES = 3;

type FileRow = typeof skillVersionFiles.$inferSelect;
type Change = 'ADDED' | 'REMOVED' | 'MODIFIED' | 'UNCHANGED';

async function filesOf(
  ex: Executor,
  version: VersionRow,
  path: string | undefined,
): Promise<Map<string, FileRow>> {
  const where: SQL[] = [eq(skillVersionFiles.versionId, version.id)];
  if (path !== undefined) where.push(eq(skillVersionFiles.path, path));
  const rows = await ex
    .select()
    .from(skillVersionFiles)
    .where(and(...where))
    .orderBy(asc(skillVersionFiles.path));
  return new Map(rows.map((r) => [r.path, r]));
}

/** Both versions must be the owner's (NOT_FOUND otherwise) and still hold their bytes. */
export async function diffVersions(
  ex: Executor,
  ownerId: string,
  input: { versionId: string; otherVersionId: string; path?: string | undefined },
) {
  const to = await ownedVersion(ex, ownerId, input.versionId);
  const from = await ownedVersion(ex, ownerId, input.otherVersionId);
  for (const version of [to, from]) requireDeliverable({ version, via: 'OWNER', leaseId: null });
  const [before, after] = await Promise.all([filesOf(ex, from, input.path), filesOf(ex, to, input.path)]);
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  if (input.path !== undefined && paths.length === 0) {
    throw new DomainError(
      'NOT_FOUND',
      `Neither ${from.id} nor ${to.id} has a file ${input.path}.`,
      { version_id: to.id, other_version_id: from.id, path: input.path },
      { next: 'Leave out path to compare every file.' },
    );
  }
  const started = performance.now();
  let out = '';
  let truncated = false;
  const files = [];
  for (const path of paths) {
    const a = before.get(path);
    const b = after.get(path);
    const change: Change = !a ? 'ADDED' : !b ? 'REMOVED' : a.sha256 === b.sha256 ? 'UNCHANGED' : 'MODIFIED';
    const binary = a?.isText === 'BINARY' || b?.isText === 'BINARY';
    let shown: 'PATCH' | 'BINARY' | 'TOO_DIFFERENT' | 'NONE' | 'TRUNCATED' = 'NONE';
    if (change !== 'UNCHANGED') {
      if (truncated) shown = 'TRUNCATED';
      else {
        const remaining = Math.max(50, DIFF_BUDGET_MS - (performance.now() - started));
        const { text, kind } = patchOf(path, a, b, binary, remaining, { from: from.id, to: to.id });
        shown = kind;
        if (out.length + text.length > DIFF_MAX_CHARS) {
          out += text.slice(0, DIFF_MAX_CHARS - out.length);
          truncated = true;
        } else out += text;
      }
    }
    files.push({
      path,
      change,
      binary,
      shown,
      sha256_before: a?.sha256 ?? null,
      sha256_after: b?.sha256 ?? null,
      size_before: a?.size ?? null,
      size_after: b?.size ?? null,
    });
  }
  return {
    version_id: to.id,
    other_version_id: from.id,
    path: input.path ?? null,
    direction: `from ${from.id} (number ${from.number}, lines -) to ${to.id} (number ${to.number}, lines +)`,
    files,
    diff: out,
    truncated,
    max_chars: DIFF_MAX_CHARS,
  };
}

function patchOf(
  path: string,
  a: FileRow | undefined,
  b: FileRow | undefined,
  binary: boolean,
  timeout: number,
  ids: { from: string; to: string },
): { text: string; kind: 'PATCH' | 'BINARY' | 'TOO_DIFFERENT' } {
  const hashes = `sha256 ${a?.sha256 ?? '(none)'} -> ${b?.sha256 ?? '(none)'}`;
  if (binary) return { text: `Binary files a/${path} and b/${path} differ (${hashes})\n`, kind: 'BINARY' };
  const textOf = (f: FileRow | undefined) => (f?.content ? f.content.toString('utf8') : '');
  const patch = createTwoFilesPatch(`a/${path}`, `b/${path}`, textOf(a), textOf(b), ids.from, ids.to, {
    context: CONTEXT_LINES,
    timeout,
  });
  if (patch === undefined) {
    return {
      text: `Files a/${path} and b/${path} differ too much to show within the time budget (${hashes})\n`,
      kind: 'TOO_DIFFERENT',
    };
  }
  return { text: patch, kind: 'PATCH' };
}
