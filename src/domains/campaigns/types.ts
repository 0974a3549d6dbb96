import type { Executor } from '../../storage/database.ts';

/**
 * A check another area adds to task_complete (skills: attached skills to be read first). It runs
 * in the submission's transaction once the lease is found current, before the source checks,
 * and refuses by throwing a DomainError; nothing is submitted then.
 */
export type CompletionGate = (
  ex: Executor,
  input: { taskId: string; leaseId: string; agentId: string; now: Date },
) => Promise<void>;

/** No area adds a check: every submission goes on to its source checks. */
export const noCompletionGate: CompletionGate = async () => {};
