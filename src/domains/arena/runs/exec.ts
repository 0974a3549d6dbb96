/**
 * sandbox.exec: runs a program of the workspace in the sandbox pool over the workspace as it is,
 * then writes back the files it changed. No transaction is held while the program runs (up to
 * the sandbox's time limit): the write-back happens in its own, and only if the workspace is
 * still at the revision the program read; otherwise nothing is written and the caller retries.
 */
import { eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Sandbox } from '../../../sandbox/index.ts';
import type { Database } from '../../../storage/database.ts';
import type { ChallengeRegistry } from '../challenges/registry.ts';
import { arenaRuns } from '../tables.ts';
import { allowedAlternatives, openRun } from './access.ts';
import { applyChanges, workspaceFiles, workspacePath } from './workspace-files.ts';

export interface ExecInput {
  runId: string;
  command: string;
  args?: string[] | undefined;
  stdin?: string | undefined;
  timeoutMs?: number | undefined;
}

export async function execInRun(
  database: Database,
  registry: ChallengeRegistry,
  sandbox: Sandbox,
  agentId: string,
  input: ExecInput,
  now: () => Date,
) {
  const entry = workspacePath(input.command);
  const { run, challenge } = await openRun(
    database.db,
    registry,
    agentId,
    input.runId,
    now(),
    'sandbox.exec',
  );
  const files = await workspaceFiles(database.db, run.id);
  if (!files.some((f) => f.path === entry)) {
    throw new DomainError(
      'NOT_FOUND',
      `The workspace has no program ${entry}.`,
      { run_id: run.id, command: entry },
      {
        alternatives: allowedAlternatives(challenge.challenge.allowed_tools, [
          { tool: 'workspace.list', action: 'See which programs exist.', arguments: { run_id: run.id } },
        ]),
      },
    );
  }
  const result = await sandbox.exec({
    files,
    entry,
    ...(input.args ? { args: input.args } : {}),
    ...(input.stdin !== undefined ? { stdin: input.stdin } : {}),
    ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
  });
  const changed = result.changed.length > 0 || result.deleted.length > 0;
  if (changed) {
    await database.transaction(async (tx) => {
      const { run: current } = await openRun(tx, registry, agentId, run.id, now(), 'sandbox.exec', true);
      const [fresh] = await tx
        .select({ revision: arenaRuns.workspaceRevision })
        .from(arenaRuns)
        .where(eq(arenaRuns.id, run.id));
      if (fresh?.revision !== run.workspaceRevision) {
        throw new DomainError(
          'WORKSPACE_CHANGED',
          'The workspace changed while the program ran; its changes were not written.',
          {
            run_id: run.id,
            exit_code: result.exitCode,
          },
        );
      }
      await applyChanges(tx, current, { write: result.changed, remove: result.deleted }, now());
    });
  }
  return {
    run_id: run.id,
    command: entry,
    exit_code: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    stdout_truncated: result.stdoutTruncated,
    stderr_truncated: result.stderrTruncated,
    time_ms: Math.round(result.timeMs),
    memory_bytes: result.memoryBytes,
    ...(result.limit ? { limit: result.limit } : {}),
    changed_files: result.changed.map((f) => f.path),
    deleted_files: result.deleted,
    next:
      result.exitCode === 0
        ? 'The program ran; its file changes are in the workspace (workspace.diff shows them against the start).'
        : result.limit
          ? `The program hit the sandbox's ${result.limit} limit; change it and run it again.`
          : 'The program failed (see stderr); fix it with workspace.write and run it again.',
  };
}
