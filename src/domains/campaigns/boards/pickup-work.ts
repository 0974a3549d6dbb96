import { and, desc, eq, inArray, lt, or } from 'drizzle-orm';
import { z } from 'zod';
import type { Clock } from '../../../kernel/clock.ts';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import { type ReadingService, windowOf } from '../../reading/index.ts';
import { appendEvent } from '../core/ledger.ts';
import { campaignEvidence, tasks } from '../tables.ts';
import { heartbeatAs, type RELEASE_REASONS, releaseAs } from '../tasks/lease-moves.ts';
import type { CompletionGate } from '../types.ts';
import { submitAs } from '../verification/completion.ts';
import { CHILD_ARGS, WHAT } from './pickup-actions.ts';
import {
  ENTRY_ACTIONS,
  type EntryAction,
  type EntryStanding,
  endEntry,
  liveEntry,
} from './public-entries.ts';

/**
 * public_task_work (SPEC): what a public taker may do with its entry, and nothing else: no
 * global actions, no live fetches, no mail, no reward release. Every call rechecks the entry.
 */

export async function workOnEntry(
  ex: Executor,
  deps: { reading: ReadingService; secret: string; clock: Clock; completionGate: CompletionGate },
  caller: Caller,
  input: { publicEntryId: string; action: string; arguments: Record<string, unknown> },
) {
  const now = deps.clock.now();
  const standing = await liveEntry(ex, caller, input.publicEntryId, now);
  if (!(ENTRY_ACTIONS as readonly string[]).includes(input.action)) {
    throw new DomainError(
      'ACTION_NOT_ALLOWED',
      `A public entry allows ${ENTRY_ACTIONS.join(', ')}; not ${input.action.slice(0, 64)}.`,
      { action: input.action.slice(0, 64), allowed_actions: [...ENTRY_ACTIONS] },
      {
        alternatives: [
          {
            tool: 'public_task_work',
            action: 'Describe one of the allowed actions.',
            arguments: {
              public_entry_id: input.publicEntryId,
              action: 'describe_action',
              arguments: { action: 'task_complete' },
            },
          },
        ],
      },
    );
  }
  const action = input.action as EntryAction;
  const parsed = CHILD_ARGS[action].safeParse(input.arguments);
  if (!parsed.success) {
    throw new DomainError(
      'VALIDATION_FAILED',
      `The arguments of ${action} are not valid.`,
      {
        detail: parsed.error.issues.map((i) => ({
          loc: ['arguments', 'arguments', ...i.path.map(String)],
          msg: i.message,
          type: i.code,
        })),
      },
      {
        alternatives: [
          {
            tool: 'public_task_work',
            action: `Read the exact arguments of ${action}.`,
            arguments: {
              public_entry_id: input.publicEntryId,
              action: 'describe_action',
              arguments: { action },
            },
          },
        ],
      },
    );
  }
  const args = parsed.data as Record<string, unknown>;
  const base = { public_entry_id: standing.entry.id, action };
  switch (action) {
    case 'describe_action': {
      const described = args.action as EntryAction;
      return {
        ...base,
        described: described,
        what: WHAT[described],
        arguments_schema: z.toJSONSchema(CHILD_ARGS[described], { io: 'input' }),
        allowed_actions: [...ENTRY_ACTIONS],
        next_steps: [continueWith(standing, described)],
      };
    }
    case 'task_evidence':
      return { ...base, ...(await taskEvidence(ex, deps, caller, standing, args)) };
    case 'evidence_get':
      return {
        ...base,
        ...(await evidenceOfTask(ex, deps.reading, caller, standing, args)),
        next_steps: [continueWith(standing, 'task_complete')],
      };
    case 'task_complete':
      return { ...base, ...(await complete(ex, deps, caller, standing, args)) };
    case 'release': {
      const released = await releaseAs(
        ex,
        standing.member,
        {
          taskId: standing.entry.taskId,
          leaseId: standing.entry.leaseId,
          reason: args.reason as (typeof RELEASE_REASONS)[number],
          note: args.note as string | undefined,
        },
        now,
      );
      await endEntry(ex, standing.entry.id, 'RELEASED', now);
      return {
        ...base,
        status: released.status,
        reason: released.reason,
        entry_ended: true,
        next: 'The entry has ended. Other boards and tasks: GET /v1/public/boards.',
      };
    }
    case 'notes':
      await appendEvent(
        ex,
        standing.entry.campaignId,
        {
          kind: 'PUBLIC_NOTE',
          actor: { agentId: caller.agent.id, role: 'PARTICIPANT' },
          taskId: standing.entry.taskId,
          payload: { public_entry_id: standing.entry.id, text: args.text },
        },
        now,
      );
      return { ...base, noted: true, next_steps: [continueWith(standing, 'task_complete')] };
    case 'renew_lease':
      return {
        ...base,
        ...(await heartbeatAs(ex, caller.agent.id, standing.entry.taskId, standing.entry.leaseId, now)),
        entry_expires_at: standing.entry.expiresAt.toISOString(),
        next_steps: [continueWith(standing, 'task_complete')],
      };
  }
}

function continueWith(standing: EntryStanding, action: EntryAction) {
  return {
    tool: 'public_task_work',
    action: WHAT[action],
    arguments: { public_entry_id: standing.entry.id, action, arguments: {} },
  };
}

/** The task's evidence (shared with the campaign for this task), newest first, a page at a time. */
async function taskEvidence(
  ex: Executor,
  deps: { secret: string },
  caller: Caller,
  standing: EntryStanding,
  args: Record<string, unknown>,
) {
  const binding = `entry-evidence:${standing.entry.id}:${caller.agent.id}`;
  const before = args.cursor
    ? openCursor<{ at?: string; id?: string }>(deps.secret, binding, args.cursor as string)
    : null;
  if (before && (typeof before.at !== 'string' || typeof before.id !== 'string')) {
    throw new DomainError('CURSOR_INVALID', 'That is not a task evidence cursor.', {});
  }
  const limit = (args.limit as number | undefined) ?? 20;
  const rows = await ex
    .select()
    .from(campaignEvidence)
    .where(
      and(
        eq(campaignEvidence.campaignId, standing.entry.campaignId),
        eq(campaignEvidence.taskId, standing.entry.taskId),
        before?.at && before.id
          ? or(
              lt(campaignEvidence.createdAt, new Date(before.at)),
              and(
                eq(campaignEvidence.createdAt, new Date(before.at)),
                lt(campaignEvidence.evidenceId, before.id),
              ),
            )
          : undefined,
      ),
    )
    .orderBy(desc(campaignEvidence.createdAt), desc(campaignEvidence.evidenceId))
    .limit(limit + 1);
  const { rows: page, next } = cutPage(rows, limit, (last) =>
    signCursor(deps.secret, binding, { at: last.createdAt.toISOString(), id: last.evidenceId }),
  );
  return {
    evidence: page.map((r) => ({
      evidence_id: r.evidenceId,
      note: r.note,
      shared_at: r.createdAt.toISOString(),
    })),
    next_cursor: next,
    next_steps:
      page.length > 0
        ? [
            {
              tool: 'public_task_work',
              action: 'Read one with its text.',
              arguments: {
                public_entry_id: standing.entry.id,
                action: 'evidence_get',
                arguments: { evidence_id: page[0]?.evidenceId, include_text: true },
              },
            },
          ]
        : [
            {
              tool: 'public_task_work',
              action: 'This task has no evidence yet: leave the campaign a note, or give the task up.',
              arguments: { public_entry_id: standing.entry.id, action: 'notes', arguments: { text: '…' } },
            },
          ],
  };
}

/** One evidence of the task: only what task_evidence lists is reachable. */
async function evidenceOfTask(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  standing: EntryStanding,
  args: Record<string, unknown>,
) {
  const evidenceId = args.evidence_id as string;
  const [shared] = await ex
    .select({ id: campaignEvidence.evidenceId })
    .from(campaignEvidence)
    .where(
      and(
        eq(campaignEvidence.campaignId, standing.entry.campaignId),
        eq(campaignEvidence.taskId, standing.entry.taskId),
        eq(campaignEvidence.evidenceId, evidenceId),
      ),
    );
  if (!shared) {
    throw new DomainError(
      'NOT_FOUND',
      `Evidence ${evidenceId} is not evidence of this task.`,
      { evidence_id: evidenceId },
      { alternatives: [continueWith(standing, 'task_evidence')] },
    );
  }
  const e = await reading.evidence(caller, evidenceId, ex);
  return {
    evidence: {
      evidence_id: e.id,
      title: e.title,
      provenance: e.provenance,
      trust_label: e.trustLabel,
      flags: e.flags,
      citation: {
        canonical_url: e.canonicalUrl,
        retrieved_at: e.retrievedAt.toISOString(),
        http_status: e.httpStatus,
        body_hash: e.bodyHash,
      },
      text_chars: e.text.length,
    },
    ...(args.include_text
      ? {
          window: windowOf(e.text, {
            offset: args.offset as number | undefined,
            maxChars: args.max_chars as number | undefined,
          }),
        }
      : {}),
  };
}

async function complete(
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
