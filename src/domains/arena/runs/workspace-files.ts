/**
 * The run's file tree, stored in the database (arena_workspace_files): UTF-8 text files under
 * canonical relative paths (the sandbox's own path rules, so what a program writes and what a
 * tool writes name files alike), capped per file, per count and per run.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createTwoFilesPatch } from 'diff';
import { and, asc, eq, like, or } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { normalizePath, SandboxPathError } from '../../../sandbox/index.ts';
import type { Executor } from '../../../storage/database.ts';
import { containsPattern } from '../../../storage/like.ts';
import type { LoadedChallenge, WorldFile } from '../challenges/index.ts';
import { arenaWorkspaceFiles } from '../tables.ts';
import { allowedAlternatives, bumpWorkspace, type RunRow } from './access.ts';
import { RUN_LIMITS } from './limits.ts';
import { textWindow } from './text-window.ts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** A workspace path in canonical form. @throws VALIDATION_FAILED for a path outside the tree. */
export function workspacePath(raw: string): string {
  try {
    const path = normalizePath(raw);
    if (path.length > RUN_LIMITS.pathChars) {
      throw new SandboxPathError(`A path may have at most ${RUN_LIMITS.pathChars} characters.`);
    }
    return path;
  } catch (err) {
    if (!(err instanceof SandboxPathError)) throw err;
    throw new DomainError(
      'VALIDATION_FAILED',
      `Not a workspace path: ${err.message}`,
      { path: raw },
      { next: "Use a relative path inside the workspace, such as 'src/main.js' (no '..', no leading '/')." },
    );
  }
}

/** A folder prefix ('' for the whole tree). */
function folderPrefix(raw: string | undefined): string {
  if (raw === undefined || raw === '' || raw === '.' || raw === '/') return '';
  return `${workspacePath(raw.replace(/\/+$/, ''))}/`;
}

export async function workspaceFiles(ex: Executor, runId: string): Promise<WorldFile[]> {
  return ex
    .select({ path: arenaWorkspaceFiles.path, content: arenaWorkspaceFiles.content })
    .from(arenaWorkspaceFiles)
    .where(eq(arenaWorkspaceFiles.runId, runId))
    .orderBy(asc(arenaWorkspaceFiles.path));
}

export async function listWorkspace(ex: Executor, run: RunRow, rawPath: string | undefined) {
  const prefix = folderPrefix(rawPath);
  const exact = prefix === '' ? undefined : prefix.slice(0, -1);
  const where = and(
    eq(arenaWorkspaceFiles.runId, run.id),
    exact === undefined
      ? undefined
      : or(
          eq(arenaWorkspaceFiles.path, exact),
          like(arenaWorkspaceFiles.path, `${containsPattern(prefix).slice(1, -1)}%`),
        ),
  );
  const files = await ex
    .select({
      path: arenaWorkspaceFiles.path,
      bytes: arenaWorkspaceFiles.bytes,
      sha256: arenaWorkspaceFiles.sha256,
      updated_at: arenaWorkspaceFiles.updatedAt,
    })
    .from(arenaWorkspaceFiles)
    .where(where)
    .orderBy(asc(arenaWorkspaceFiles.path));
  return {
    run_id: run.id,
    path: exact ?? '',
    files,
    totals: { files: files.length, run_bytes: run.workspaceBytes },
    caps: { file_bytes: RUN_LIMITS.fileBytes, files: RUN_LIMITS.files, run_bytes: RUN_LIMITS.totalBytes },
    next: 'Read a file with workspace.read (path); change one with workspace.write.',
  };
}

async function fileRow(ex: Executor, runId: string, path: string) {
  const [row] = await ex
    .select()
    .from(arenaWorkspaceFiles)
    .where(and(eq(arenaWorkspaceFiles.runId, runId), eq(arenaWorkspaceFiles.path, path)));
  return row;
}

function noSuchFile(runId: string, path: string, allowedTools: readonly string[]): DomainError {
  return new DomainError(
    'NOT_FOUND',
    `The workspace has no file ${path}.`,
    { run_id: runId, path },
    {
      alternatives: allowedAlternatives(allowedTools, [
        {
          tool: 'workspace.list',
          action: 'See the files the workspace holds.',
          arguments: { run_id: runId },
        },
      ]),
    },
  );
}

/** A window of a file: `max_chars` UTF-16 code units from `offset`, never splitting a surrogate pair. */
export async function readWorkspace(
  ex: Executor,
  run: RunRow,
  input: { path: string; offset?: number | undefined; maxChars?: number | undefined },
  allowedTools: readonly string[],
) {
  const path = workspacePath(input.path);
  const row = await fileRow(ex, run.id, path);
  if (!row) throw noSuchFile(run.id, path, allowedTools);
  const window = textWindow(row.content, input.offset ?? 0, input.maxChars ?? RUN_LIMITS.readDefaultChars);
  const nextOffset = window.range.next_offset;
  return {
    run_id: run.id,
    path,
    ...window,
    sha256: row.sha256,
    bytes: row.bytes,
    ...(nextOffset === null ? {} : { next: `More follows: call workspace.read with offset ${nextOffset}.` }),
  };
}

function overCap(message: string, details: Record<string, unknown>): DomainError {
  return new DomainError('WORKSPACE_LIMIT', message, details);
}

/**
 * Writes a set of files and deletions in the caller's transaction, within the caps. Nothing is
 * written when any cap would be passed.
 */
export async function applyChanges(
  ex: Executor,
  run: RunRow,
  changes: { write: WorldFile[]; remove: string[] },
  now: Date,
): Promise<{ written: string[]; removed: string[] }> {
  const existing = new Map(
    (
      await ex
        .select({ path: arenaWorkspaceFiles.path, bytes: arenaWorkspaceFiles.bytes })
        .from(arenaWorkspaceFiles)
        .where(eq(arenaWorkspaceFiles.runId, run.id))
    ).map((r) => [r.path, r.bytes]),
  );
  let total = [...existing.values()].reduce((a, b) => a + b, 0);
  const removed = changes.remove.filter((path) => existing.has(path));
  for (const path of removed) {
    total -= existing.get(path) ?? 0;
    existing.delete(path);
  }
  for (const file of changes.write) {
    const bytes = utf8Bytes(file.content);
    if (bytes > RUN_LIMITS.fileBytes) {
      throw overCap(
        `${file.path} would be ${bytes} bytes; a workspace file may have at most ${RUN_LIMITS.fileBytes}.`,
        {
          path: file.path,
          bytes,
          cap: RUN_LIMITS.fileBytes,
        },
      );
    }
    total += bytes - (existing.get(file.path) ?? 0);
    existing.set(file.path, bytes);
  }
  if (existing.size > RUN_LIMITS.files) {
    throw overCap(`The workspace would hold ${existing.size} files; at most ${RUN_LIMITS.files}.`, {
      files: existing.size,
      cap: RUN_LIMITS.files,
    });
  }
  if (total > RUN_LIMITS.totalBytes) {
    throw overCap(`The workspace would hold ${total} bytes; at most ${RUN_LIMITS.totalBytes}.`, {
      bytes: total,
      cap: RUN_LIMITS.totalBytes,
    });
  }
  for (const path of removed) {
    await ex
      .delete(arenaWorkspaceFiles)
      .where(and(eq(arenaWorkspaceFiles.runId, run.id), eq(arenaWorkspaceFiles.path, path)));
  }
  for (const file of changes.write) {
    const values = {
      content: file.content,
      bytes: utf8Bytes(file.content),
      sha256: sha256(file.content),
      updatedAt: now,
    };
    await ex
      .insert(arenaWorkspaceFiles)
      .values({ runId: run.id, path: file.path, ...values })
      .onConflictDoUpdate({ target: [arenaWorkspaceFiles.runId, arenaWorkspaceFiles.path], set: values });
  }
  const before = run.workspaceBytes;
  await bumpWorkspace(ex, run.id, total - before);
  return { written: changes.write.map((f) => f.path), removed };
}

export async function deleteWorkspaceFile(
  ex: Executor,
  run: RunRow,
  rawPath: string,
  now: Date,
  allowedTools: readonly string[],
) {
  const path = workspacePath(rawPath);
  if (!(await fileRow(ex, run.id, path))) throw noSuchFile(run.id, path, allowedTools);
  await applyChanges(ex, run, { write: [], remove: [path] }, now);
  return { run_id: run.id, path, deleted: true };
}

/** Seeds a started run's workspace with the challenge's world. */
export async function seedWorkspace(ex: Executor, run: RunRow, challenge: LoadedChallenge, now: Date) {
  await applyChanges(ex, run, { write: challenge.worldFiles, remove: [] }, now);
}

/** Deletes every file of the run's world (its end); returns how many were deleted. */
export async function destroyWorld(ex: Executor, runId: string): Promise<number> {
  const gone = await ex
    .delete(arenaWorkspaceFiles)
    .where(eq(arenaWorkspaceFiles.runId, runId))
    .returning({ path: arenaWorkspaceFiles.path });
  return gone.length;
}

const DIFF_MAX_CHARS = 100_000;
const DIFF_BUDGET_MS = 2_000;

/** The workspace against the world it was seeded with: each changed path and a unified diff. */
export async function diffWorkspace(
  ex: Executor,
  run: RunRow,
  challenge: LoadedChallenge,
  rawPath: string | undefined,
) {
  const prefix = folderPrefix(rawPath);
  const within = (path: string) => prefix === '' || path === prefix.slice(0, -1) || path.startsWith(prefix);
  const seed = new Map(challenge.worldFiles.filter((f) => within(f.path)).map((f) => [f.path, f.content]));
  const now = new Map(
    (await workspaceFiles(ex, run.id)).filter((f) => within(f.path)).map((f) => [f.path, f.content]),
  );
  const paths = [...new Set([...seed.keys(), ...now.keys()])].sort();
  const started = performance.now();
  const files: Array<{ path: string; change: 'ADDED' | 'DELETED' | 'MODIFIED' }> = [];
  let diff = '';
  let truncated = false;
  for (const path of paths) {
    const a = seed.get(path);
    const b = now.get(path);
    if (a === b) continue;
    files.push({ path, change: a === undefined ? 'ADDED' : b === undefined ? 'DELETED' : 'MODIFIED' });
    if (truncated) continue;
    const timeout = Math.max(50, DIFF_BUDGET_MS - (performance.now() - started));
    const patch =
      createTwoFilesPatch(`a/${path}`, `b/${path}`, a ?? '', b ?? '', 'seed', 'workspace', {
        context: 3,
        timeout,
      }) ?? `Files a/${path} and b/${path} differ too much to show within the time budget\n`;
    if (diff.length + patch.length > DIFF_MAX_CHARS) {
      diff += patch.slice(0, DIFF_MAX_CHARS - diff.length);
      truncated = true;
    } else diff += patch;
  }
  return {
    run_id: run.id,
    path: prefix === '' ? '' : prefix.slice(0, -1),
    against: 'the world the run was seeded with',
    next: 'Hand results in with artifact_submit; end the run with result_verify.',
    files,
    diff,
    truncated,
  };
}
