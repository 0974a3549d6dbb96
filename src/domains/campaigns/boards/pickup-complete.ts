import { and, eq, inArray } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import type { ReadingService } from '../../reading/index.ts';
import { campaignEvidence, tasks } from '../tables.ts';
import type { CompletionGate } from '../types.ts';
import { submitAs } from '../verification/completion.ts';
import { continueWith } from './pickup-actions.ts';
import { type EntryStanding, endEntry } from './public-entries.ts';

/**
 * A public taker's task_complete: the result is submitted as a member's would be, citing only
 * the evidence the campaign shared for the task, and the entry ends once the result is verified.
 */
export async function complete(
  ex: Executor,
  deps: { reading: ReadingService; clock: Clock; completionGate: CompletionGate },
  caller: Caller,
  standing: EntryStanding,
  args: Record<string, unknown>,
) {
  const [task] = await ex.select().from(tasks).where(eq(tasks.id, standing.entry.taskId));
  if (!task) throw new Error(`task ${standing.entry.taskId} of entry ${standing.entry.id} vanished`);
  // Only the task's evidence: a taker cites what the campaign shared for the task, never text it
  // brought itself (which is also why the paid rule holds without PAID_QUOTES_OWN_READS).
  const wanted = [...new Set(args.evidence_ids as string[])];
  const ofTask = await ex
    .select({ id: campaignEvidence.evidenceId })
    .from(campaignEvidence)
    .where(
      and(
        eq(campaignEvidence.campaignId, standing.entry.campaignId),
        eq(campaignEvidence.taskId, standing.entry.taskId),
        inArray(campaignEvidence.evidenceId, wanted),
      ),
    );
  const outside = wanted.filter((id) => !ofTask.some((r) => r.id === id));
  if (outside.length > 0) {
    throw new DomainError(
      'NOT_FOUND',
      `Not evidence of this task: ${outside.join(', ')}. Nothing was submitted.`,
      { evidence_ids: outside },
      { alternatives: [continueWith(standing, 'task_evidence')] },
    );
  }
  let result: Awaited<ReturnType<typeof submitAs>>;
  try {
    result = await submitAs(
      ex,
      deps.reading,
      caller,
      standing.member,
      task,
      {
        taskId: task.id,
        leaseId: standing.entry.leaseId,
        evidenceIds: args.evidence_ids as string[],
        claimedOutcome: args.claimed_outcome as 'COMPLETE' | 'PARTIAL' | 'FAILED',
        summary: args.summary as string,
      },
      deps.clock,
      { paidRule: 'TASK_EVIDENCE', gate: deps.completionGate },
    );
  } catch (err) {
    // The member's advice (read under the lease) is not open to a public taker.
    if (err instanceof DomainError && err.code === 'EVIDENCE_REQUIRED') {
      throw new DomainError(
        'EVIDENCE_REQUIRED',
        'task_complete needs at least one evidence of this task among evidence_ids; nothing was submitted.',
        err.details,
        {
          alternatives: [continueWith(standing, 'task_evidence')],
        },
      );
    }
    throw err;
  }
  const verified = result.task_status === 'VERIFIED';
  if (verified) await endEntry(ex, standing.entry.id, 'COMPLETED', deps.clock.now());
  const { next: _memberAdvice, ...rest } = result;
  return {
    ...rest,
    entry_ended: verified,
    next: verified
      ? {
          actor: 'COORDINATOR',
          action:
            'The campaign reviews the result; a paid task is paid out after its owner approves. Your entry has ended.',
        }
      : {
          actor: 'WORKER',
          action: `Fix what failed (quote the task evidence verbatim, attach the evidence the quotations come from) and submit again with public_task_work action task_complete before ${result.next && 'execution_deadline' in result.next ? result.next.execution_deadline : 'the execution deadline'}; or give the task up with action release.`,
        },
  };
}
