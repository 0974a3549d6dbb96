/**
 * artifact_submit: hands a result in, from a workspace file or as content. The latest
 * submission of each name is the one scored; every submission is kept (with its hash) after
 * the run's world is destroyed.
 */
import { createHash } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { arenaArtifacts, arenaRuns, arenaWorkspaceFiles } from '../tables.ts';
import { allowedAlternatives, type OpenRun } from './access.ts';
import { RUN_LIMITS } from './limits.ts';
import { workspacePath } from './workspace-files.ts';

export async function submitArtifact(
  ex: Executor,
  open: OpenRun,
  agentId: string,
  input: { name: string; path?: string | undefined; content?: string | undefined },
  now: Date,
) {
  const { run } = open;
  if ((input.path === undefined) === (input.content === undefined)) {
    throw new DomainError('VALIDATION_FAILED', 'Give either path (a workspace file) or content, not both.', {
      run_id: run.id,
    });
  }
  let content = input.content;
  let fromPath: string | null = null;
  if (input.path !== undefined) {
    fromPath = workspacePath(input.path);
    const [file] = await ex
      .select({ content: arenaWorkspaceFiles.content })
      .from(arenaWorkspaceFiles)
      .where(and(eq(arenaWorkspaceFiles.runId, run.id), eq(arenaWorkspaceFiles.path, fromPath)));
    if (!file) {
      throw new DomainError(
        'NOT_FOUND',
        `The workspace has no file ${fromPath}.`,
        { run_id: run.id, path: fromPath },
        {
          alternatives: allowedAlternatives(open.challenge.challenge.allowed_tools, [
            { tool: 'workspace.list', action: 'See the files.', arguments: { run_id: run.id } },
          ]),
        },
      );
    }
    content = file.content;
  }
  const text = content ?? '';
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > RUN_LIMITS.artifactBytes) {
    throw new DomainError(
      'PAYLOAD_TOO_LARGE',
      `An artifact may have at most ${RUN_LIMITS.artifactBytes} bytes; this one has ${bytes}.`,
      {
        bytes,
        cap: RUN_LIMITS.artifactBytes,
      },
    );
  }
  const names = await ex
    .selectDistinct({ name: arenaArtifacts.name })
    .from(arenaArtifacts)
    .where(eq(arenaArtifacts.runId, run.id));
  if (!names.some((n) => n.name === input.name) && names.length >= RUN_LIMITS.artifactNames) {
    throw new DomainError(
      'WORKSPACE_LIMIT',
      `A run may hand in at most ${RUN_LIMITS.artifactNames} artifact names.`,
      {
        cap: RUN_LIMITS.artifactNames,
      },
    );
  }
  const id = newId('art', now);
  const sha256 = createHash('sha256').update(text, 'utf8').digest('hex');
  await ex.insert(arenaArtifacts).values({
    id,
    runId: run.id,
    agentId,
    name: input.name,
    content: text,
    bytes,
    sha256,
    fromPath,
    createdAt: now,
  });
  if (run.state === 'RUNNING') {
    await ex.update(arenaRuns).set({ state: 'SUBMITTED' }).where(eq(arenaRuns.id, run.id));
  }
  return {
    run_id: run.id,
    artifact_id: id,
    name: input.name,
    sha256,
    bytes,
    state: 'SUBMITTED' as const,
    next: 'Hand in more (a new submission of the same name replaces it for scoring), or end the run with result_verify to have it scored and signed.',
  };
}

/** The latest submission of each name, for the verifier and the signed payload. */
export async function latestArtifacts(ex: Executor, runId: string) {
  const rows = await ex
    .selectDistinctOn([arenaArtifacts.name], {
      name: arenaArtifacts.name,
      content: arenaArtifacts.content,
      sha256: arenaArtifacts.sha256,
    })
    .from(arenaArtifacts)
    .where(eq(arenaArtifacts.runId, runId))
    .orderBy(arenaArtifacts.name, desc(arenaArtifacts.createdAt), desc(sql`${arenaArtifacts.id}`));
  return rows;
}
