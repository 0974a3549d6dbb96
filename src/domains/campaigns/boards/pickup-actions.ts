import { z } from 'zod';
import { READING_LIMITS } from '../../reading/index.ts';
import { evidenceIdArg, longText } from '../schemas.ts';
import { RELEASE_REASONS } from '../tasks/lease-moves.ts';
import { ENTRY_ACTIONS, type EntryAction, type EntryStanding } from './public-entries.ts';

/** The arguments and meaning of each public_task_work action (describe_action publishes them). */

export const CHILD_ARGS = {
  describe_action: z.object({ action: z.enum(ENTRY_ACTIONS).describe('The action to describe.') }).strict(),
  task_evidence: z
    .object({
      limit: z.number().int().min(1).max(50).optional().describe('Evidence per page, 1-50 (default 20).'),
      cursor: z.string().max(500).optional().describe('next_cursor of the previous page.'),
    })
    .strict(),
  evidence_get: z
    .object({
      evidence_id: evidenceIdArg.describe('An evidence of this task, from task_evidence.'),
      include_text: z.boolean().optional().describe('Include a window of the text (default false).'),
      offset: z.number().int().min(0).max(100_000_000).optional().describe('Where the window starts.'),
      max_chars: z
        .number()
        .int()
        .min(READING_LIMITS.window.minChars)
        .max(READING_LIMITS.window.maxChars)
        .optional()
        .describe(`Window size (default ${READING_LIMITS.window.defaultChars}).`),
    })
    .strict(),
  task_complete: z
    .object({
      evidence_ids: z
        .array(evidenceIdArg)
        .min(1)
        .max(20)
        .describe('The task evidence the summary rests on (1-20).'),
      claimed_outcome: z.enum(['COMPLETE', 'PARTIAL', 'FAILED']),
      summary: longText(20_000).describe(
        'The conclusion with verbatim quotations (20+ characters, in quotation marks) of the task evidence beside the claims they support.',
      ),
    })
    .strict(),
  release: z
    .object({
      reason: z.enum(RELEASE_REASONS).describe('Why you give the task up.'),
      note: longText(2_000).optional().describe('A word for the campaign (up to 2,000 characters).'),
    })
    .strict(),
  notes: z
    .object({
      text: longText(2_000).describe('A note for the campaign on this task (up to 2,000 characters).'),
    })
    .strict(),
  renew_lease: z.object({}).strict(),
} satisfies Record<EntryAction, z.ZodType>;

export const WHAT: Record<EntryAction, string> = {
  describe_action: "The exact JSON schema of another action's arguments.",
  task_evidence: "The task's evidence, newest first: the sources you may quote.",
  evidence_get: 'One evidence of the task, with a window of its text when include_text is true.',
  task_complete:
    'Submit the result: the same checks as campaign work (every quotation is looked up in the attached evidence). VERIFIED ends the entry.',
  release: 'Give the task up: the lease ends, the task reopens, the entry ends.',
  notes: 'Leave a note for the campaign on this task (on its ledger).',
  renew_lease: 'Say you are still working: records a heartbeat; the execution deadline never moves.',
};

/** The next step that goes on with the entry by one of its actions, described in WHAT's words. */
export function continueWith(standing: EntryStanding, action: EntryAction) {
  return {
    tool: 'public_task_work',
    action: WHAT[action],
    arguments: { public_entry_id: standing.entry.id, action, arguments: {} },
  };
}
