import { z } from 'zod';
import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import type { ReadingService } from '../../reading/index.ts';
import { appendEvent } from '../core/ledger.ts';
import { heartbeatAs, type RELEASE_REASONS, releaseAs } from '../tasks/lease-moves.ts';
import type { CompletionGate } from '../types.ts';
import { CHILD_ARGS, continueWith, WHAT } from './pickup-actions.ts';
import { complete } from './pickup-complete.ts';
import { evidenceOfTask, taskEvidence } from './pickup-evidence.ts';
import { ENTRY_ACTIONS, type EntryAction, endEntry, liveEntry } from './public-entries.ts';

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
