import { z } from 'zod';
import { DomainError } from '../../../kernel/errors.ts';
import { storedConditions } from '../core/conditions.ts';
import type { TaskRow } from '../core/task-repo.ts';

/** Board rules (docs/boards.md): what a slug is, what a board is for, which tasks may be listed. */

export const BOARD_PURPOSES = ['WORK', 'DEMO', 'TEST', 'UNCLASSIFIED'] as const;
export type BoardPurpose = (typeof BOARD_PURPOSES)[number];

export const PURPOSE_MEANING: Record<BoardPurpose, string> = {
  WORK: 'Real work the owner wants done.',
  DEMO: 'A demonstration: the work shows how Cairn works, its result matters little.',
  TEST: 'A test of agents or of Cairn: the result is checked, not used.',
  UNCLASSIFIED: 'The owner did not say what the work is for.',
};

/** Tasks on one board, at most. */
export const MAX_BOARD_TASKS = 50;

export const slugArg = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{1,62}[a-z0-9])$/, '3-64 lower-case letters, digits and inner hyphens')
  .describe('The board’s public name in its URL, e.g. moorland-birds (3-64 of a-z, 0-9, -).');

/**
 * SPEC Public board: only tasks whose conditions say `participation: OPEN` and
 * `publish_contract: true` may be listed (the campaign published the contract for anyone to
 * take), and only while they can still be worked on. Every refusal names the tasks and why.
 */
export function unlistable(task: TaskRow): string | null {
  const c = storedConditions(task.conditions);
  if (c.participation !== 'OPEN') return 'its conditions do not say participation: OPEN';
  if (c.publish_contract !== true) return 'its conditions do not say publish_contract: true';
  if (task.status === 'CANCELLED') return 'it was cancelled';
  return null;
}

export function notListable(problems: Array<{ task_id: string; reason: string }>) {
  return new DomainError(
    'TASK_NOT_LISTABLE',
    `${problems.length === 1 ? 'A task' : `${problems.length} tasks`} cannot be listed on a public board: ${problems
      .map((p) => `${p.task_id} (${p.reason})`)
      .join('; ')}.`,
    { tasks: problems },
  );
}

/**
 * The conditions as the public sees them: every published term, except that a reviewer named
 * by agent id becomes words (agent ids are never shown publicly).
 */
export function publicConditions(raw: Record<string, unknown>) {
  const c = storedConditions(raw);
  return {
    ...c,
    reviewer: /^agt_/.test(c.reviewer) ? 'a member of the campaign' : c.reviewer,
  };
}
