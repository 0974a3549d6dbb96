import { and, desc, eq, type SQLWrapper, sql } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import type { ReadingService } from '../../reading/index.ts';
import { submissionsVisible } from '../audience.ts';
import { appendEvent } from '../core/ledger.ts';
import type { Membership } from '../core/member.ts';
import { taskForMember } from '../core/task-access.ts';
import { historyInsert, type TaskRow } from '../core/task-repo.ts';
import { CAMPAIGN_LIMITS } from '../limits.ts';
import { rewardOfTask } from '../rewards/escrow.ts';
import { campaignEvidence, taskLeases, taskSubmissions, tasks } from '../tables.ts';
import { requireCurrentLease, requireLeaseHeld } from '../tasks/leases.ts';
import { isFunded } from '../tasks/task-reads.ts';
import type { CompletionGate } from '../types.ts';
import { withPaidRule } from './paid-quotes.ts';
import { type Verification, verifySummary } from './source-checks.ts';

/**
 * task_complete and result_verify (SPEC Task, States and transitions, Errors 4). A submission
 * whose checks pass ends the lease and the task becomes VERIFIED; one whose checks fail is kept
 * with its mismatches while the lease stays, so the worker can resubmit before the deadline.
 */

export interface Completion {
  taskId: string;
  campaignId?: string | undefined;
  leaseId: string;
  evidenceIds: string[];
  claimedOutcome: 'COMPLETE' | 'PARTIAL' | 'FAILED';
  summary: string;
}

/** What to change for each failed check: the advice names only what actually failed. */
function fixesFor(v: Verification): string[] {
  const failed = new Set(v.checks.filter((c) => !c.passed).map((c) => c.check));
  const fixes: string[] = [];
  if (failed.has('RECORDED_SOURCE')) {
    fixes.push(
      'Attach evidence you read yourself (fetch_text under this lease) or evidence shared in this campaign.',
    );
  }
  if (failed.has('QUOTATION_PRESENT')) {
    fixes.push(
      'Quote the source verbatim: 20 or more characters in quotation marks, beside the claim the quotation supports.',
    );
  }
  if (v.unmatched_quotes.length > 0) {
    fixes.push(
      'Fix the unmatched quotations (quote the source verbatim) or attach the evidence they come from.',
    );
  }
  if (failed.has('PAID_QUOTES_OWN_READS')) {
    fixes.push(
      'This task is paid: read the sources yourself under this task (fetch_text with its task_id) and quote those reads; evidence shared by others does not count.',
    );
  }
  if (failed.has('EVERY_QUOTATION_CHECKED')) {
    fixes.push(v.checks.find((c) => c.check === 'EVERY_QUOTATION_CHECKED')?.detail ?? '');
  }
  return fixes.filter(Boolean);
}

/** Who may act next and what they should do, from a verification outcome. */
function nextStep(v: Verification, worker: string, deadline: Date) {
  return v.status === 'VERIFIED'
    ? {
        actor: 'COORDINATOR',
        action:
          'Review the result (task_get). The checks matched the quotations to their sources; judging the conclusion is a separate, human or peer decision.',
      }
    : {
        actor: 'WORKER',
        agent_id: worker,
        action: `${fixesFor(v).join(' ')} Then call task_complete again before ${deadline.toISOString()}; resubmission is allowed. Or release the task with task_release.`,
        execution_deadline: deadline.toISOString(),
      };
}

export async function completeTask(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  input: Completion,
  clock: Clock,
  gate: CompletionGate,
) {
  // Membership first (a task of another campaign is NOT_FOUND).
  const { member, task } = await taskForMember(ex, caller, input.taskId, {
    forChange: true,
    campaignId: input.campaignId,
  });
  return submitAs(ex, reading, caller, member, task, input, clock, { paidRule: 'OWN_READS', gate });
}

/**
 * A submission by a lease holder whose standing the caller checked: a member (task_complete) or
 * the taker of a public entry (public_task_work). On a funded task a member's quotations must
 * come from its own reads (PAID_QUOTES_OWN_READS); a public taker reads nothing itself and may
 * only cite the task's evidence, which it cannot add to, so that rule holds by construction and
 * is not applied (`paidRule: 'TASK_EVIDENCE'`; docs/boards.md).
 */
export async function submitAs(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  member: Membership,
  seen: TaskRow,
  input: Completion,
  clock: Clock,
  opts: { paidRule: 'OWN_READS' | 'TASK_EVIDENCE'; gate: CompletionGate },
) {
  const me = caller.agent.id;
  const started = clock.now();
  // The lease checked without a lock: the checks below can take a while and must not hold the
  // task row meanwhile.
  await requireLeaseHeld(ex, me, input.taskId, input.leaseId, started);
  // Other areas' checks (skills read first) before the source checks, which may take a while.
  await opts.gate(ex, { taskId: input.taskId, leaseId: input.leaseId, agentId: me, now: started });
  const evidenceIds = [...new Set(input.evidenceIds)];
  const checked = await verifySummary(
    ex,
    reading,
    caller,
    seen.campaignId,
    evidenceIds,
    input.summary,
    started,
  );
  const paid = opts.paidRule === 'OWN_READS' && isFunded((await rewardOfTask(ex, seen.id))?.status);
  const verification = paid
    ? await withPaidRule(ex, reading, caller, seen.id, input.summary, checked)
    : checked;
  if (verification.evidence_completeness.recorded_sources.length === 0) {
    throw new DomainError(
      'EVIDENCE_REQUIRED',
      'task_complete needs at least one recorded source you may see among evidence_ids; nothing was submitted.',
      { task_id: seen.id, evidence: verification.evidence_completeness },
      {
        alternatives: [
          {
            tool: 'fetch_text',
            action: 'Read the source under this lease; its evidence_id is a recorded source.',
          },
        ],
      },
    );
  }
  // Now the task row is locked and the lease checked again, at the time it is now: the checks
  // may have taken long, and a deadline that passed meanwhile ends the lease (never paid for).
  const now = clock.now();
  const { lease, task } = await requireCurrentLease(ex, me, input.taskId, input.leaseId, now);
  const submissionId = newId('sub', now);
  const verified = verification.status === 'VERIFIED';
  const version = verified ? task.version + 1 : task.version;
  // The submission, its history entry, the sources it adds to the campaign, the lease's end and
  // the task's move, and the ledger event: one statement (docs/performance.md, "Round trips").
  const writes: SQLWrapper[] = [
    ex.insert(taskSubmissions).values({
      id: submissionId,
      taskId: task.id,
      leaseId: lease.id,
      agentId: me,
      evidenceIds,
      claimedOutcome: input.claimedOutcome,
      summary: input.summary,
      verification: verification as unknown as Record<string, unknown>,
      verifiedStatus: verification.status,
      createdAt: now,
      checkedAt: now,
    }),
    historyInsert(ex, {
      taskId: task.id,
      agentId: me,
      kind: 'SUBMIT',
      before: { status: task.status },
      after: {
        status: verified ? 'VERIFIED' : task.status,
        submission_id: submissionId,
        verified_status: verification.status,
      },
      version,
      now,
    }),
  ];
  // Attached sources join the campaign's evidence, shared as its visibility mode says (there is
  // at least one: EVIDENCE_REQUIRED above; an empty insert cannot even be built).
  const sources = verification.evidence_completeness.recorded_sources;
  if (sources.length > 0) {
    writes.push(
      ex
        .insert(campaignEvidence)
        .values(
          sources.map((evidenceId) => ({
            campaignId: task.campaignId,
            evidenceId,
            agentId: me,
            authorRole: member.role,
            taskId: task.id,
            note: null,
            createdAt: now,
          })),
        )
        .onConflictDoNothing(),
    );
  }
  if (verified) {
    writes.push(
      ex.update(taskLeases).set({ endedAt: now, endReason: 'SUBMITTED' }).where(eq(taskLeases.id, lease.id)),
      ex
        .update(tasks)
        .set({ status: 'VERIFIED', verifiedSubmissionId: submissionId, version, updatedAt: now })
        .where(eq(tasks.id, task.id)),
    );
  }
  await appendEvent(
    ex,
    task.campaignId,
    {
      kind: 'TASK_SUBMITTED',
      actor: { agentId: me, role: member.role },
      taskId: task.id,
      isResult: true,
      evidenceIds: verification.evidence_completeness.recorded_sources,
      payload: {
        submission_id: submissionId,
        claimed_outcome: input.claimedOutcome,
        verified_status: verification.status,
        matched: verification.matched_quotes.length,
        unmatched: verification.unmatched_quotes.length,
      },
    },
    now,
    writes,
  );
  return {
    submission_id: submissionId,
    task_id: task.id,
    task_status: verified ? 'VERIFIED' : task.status,
    version,
    claimed_outcome: input.claimedOutcome,
    ...verification,
    next: nextStep(verification, me, lease.executionDeadline),
  };
}

/** result_verify: runs the checks again on a submission the caller may see, and records the outcome. */
export async function reverify(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  input: { taskId: string; campaignId?: string | undefined; submissionId?: string | undefined },
  now: Date,
) {
  const { task, member, viewer } = await taskForMember(ex, caller, input.taskId, {
    forChange: true,
    campaignId: input.campaignId,
  });
  const [submission] = await ex
    .select()
    .from(taskSubmissions)
    .where(
      and(
        eq(taskSubmissions.taskId, task.id),
        input.submissionId ? eq(taskSubmissions.id, input.submissionId) : sql`true`,
        submissionsVisible(viewer),
      ),
    )
    .orderBy(desc(taskSubmissions.createdAt), desc(taskSubmissions.id))
    .limit(1);
  if (!submission) {
    throw new DomainError('NOT_FOUND', `No submission of task ${task.id} is visible to this identity.`, {
      task_id: task.id,
      submission_id: input.submissionId ?? null,
    });
  }
  const checked = await verifySummary(
    ex,
    reading,
    caller,
    task.campaignId,
    submission.evidenceIds,
    submission.summary,
    now,
  );
  // The paid rule is about the submitter's own reads: it applies when the submitter re-checks.
  const paid = submission.agentId === caller.agent.id && isFunded((await rewardOfTask(ex, task.id))?.status);
  const verification = paid
    ? await withPaidRule(ex, reading, caller, task.id, submission.summary, checked)
    : checked;
  // The checks ran with the caller's access to evidence. Only the submitter's own re-check
  // replaces the stored outcome; anyone else's is reported and recorded on the ledger, so a
  // reviewer who cannot see a source cannot turn a VERIFIED submission into NOT_VERIFIED.
  const stored = submission.agentId === caller.agent.id;
  if (stored) {
    await ex
      .update(taskSubmissions)
      .set({
        verification: verification as unknown as Record<string, unknown>,
        verifiedStatus: verification.status,
        checkedAt: now,
      })
      .where(eq(taskSubmissions.id, submission.id));
  }
  await appendEvent(
    ex,
    task.campaignId,
    {
      kind: 'RESULT_VERIFIED',
      actor: { agentId: caller.agent.id, role: member.role },
      taskId: task.id,
      isResult: true,
      subjectAgentId: submission.agentId,
      evidenceIds: verification.evidence_completeness.recorded_sources.slice(
        0,
        CAMPAIGN_LIMITS.graph.evidencePerEvent,
      ),
      payload: {
        submission_id: submission.id,
        verified_status: verification.status,
        previous_status: submission.verifiedStatus,
      },
    },
    now,
  );
  return {
    submission_id: submission.id,
    task_id: task.id,
    submitted_by: submission.agentId,
    claimed_outcome: submission.claimedOutcome,
    previous_status: submission.verifiedStatus,
    stored,
    ...verification,
  };
}
