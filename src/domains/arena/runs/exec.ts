/**
 * sandbox.exec: runs a program of the workspace in the sandbox pool over the workspace as it is,
 * then writes back the files it changed. No transaction is held while the program runs (up to
 * the sandbox's time limit): the write-back happens in its own, and only if the workspace is
 * still at the revision the program read; otherwise nothing is written and the caller retries.
 */
import { eq } from 'drizzle-orm';
import { earlierAnswer, runOnce } from '../../../framework/index.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { ExecResult, Sandbox } from '../../../sandbox/index.ts';
import type { Database, Executor } from '../../../storage/database.ts';
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
  once: { key: { agentId: string; operation: string; key: string }; argsHash: string },
) {
  // A repeat of a finished call is answered from its record: the program does not run again.
  const earlier = await earlierAnswer(database.db, once.key, once.argsHash);
  if (earlier) return earlier.result;
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
  // Fair shares of the pool (issue 40): per owner, and one program at a time per run.
  const result = await sandbox.exec(
    {
      files,
      entry,
      ...(input.args ? { args: input.args } : {}),
      ...(input.stdin !== undefined ? { stdin: input.stdin } : {}),
      ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
    },
    { owner: run.ownerId, run: run.id },
  );
  const changed = result.changed.length > 0 || result.deleted.length > 0;
  const answer = present(run.id, entry, result);
  // The write-back and the answer's record commit together; a concurrent repeat that ran too is
  // answered with the first record and writes nothing.
  return database.transaction((tx) =>
    runOnce(tx, once.key, once.argsHash, now(), async () => {
      if (changed) await writeBack(tx, registry, agentId, run, result, now());
      return answer;
    }),
  );
}

/** Writes the program's changes, if the workspace is still at the revision the program read. */
async function writeBack(
  tx: Executor,
  registry: ChallengeRegistry,
  agentId: string,
  run: { id: string; workspaceRevision: number },
  result: ExecResult,
  now: Date,
) {
  const { run: current } = await openRun(tx, registry, agentId, run.id, now, 'sandbox.exec', true);
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
  await applyChanges(tx, current, { write: result.changed, remove: result.deleted }, now);
}

function present(runId: string, entry: string, result: ExecResult) {
  return {
    run_id: runId,
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
