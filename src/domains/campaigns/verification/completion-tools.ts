import { z } from 'zod';
import { campaignTool } from '../campaign-tool.ts';
import { afterSubmit } from '../next-steps.ts';
import { evidenceIdArg, leaseIdArg, longText, taskIdArg } from '../schemas.ts';
import { completeTask, reverify } from './completion.ts';
import { submitEvidence } from './evidence-share.ts';

/** Handing in results and sharing evidence. */

const MAX_EVIDENCE = 20;

const taskComplete = campaignTool({
  name: 'task_complete',
  description:
    'Submit the result of a task you hold. The summary states the conclusion with a verbatim quotation (20+ characters, in quotation marks) of the source beside the claim it supports; every such quotation is looked up in the attached evidence. Returns matched_quotes, unmatched_quotes, evidence_completeness and the next actor and action. VERIFIED means the configured checks passed, not that the conclusion is true; a failed check keeps your lease so you can resubmit.',
  args: {
    task_id: taskIdArg,
    lease_id: leaseIdArg.describe('Your current lease on the task.'),
    evidence_ids: z
      .array(evidenceIdArg)
      .min(1)
      .max(MAX_EVIDENCE)
      .describe(
        `The evidence the summary rests on (1-${MAX_EVIDENCE}); at least one must be a recorded source.`,
      ),
    claimed_outcome: z.enum(['COMPLETE', 'PARTIAL', 'FAILED']),
    summary: longText(20_000).describe(
      'The conclusion with verbatim source quotations beside the claims they support (up to 20,000 characters).',
    ),
  },
  mutates: true,
  handler: async (ctx, input) => {
    const submitted = await completeTask(ctx.ex, ctx.services.reading, ctx.caller, input, ctx.clock.now());
    return { ...submitted, next_steps: afterSubmit(submitted, input.leaseId) };
  },
});

const resultVerify = campaignTool({
  name: 'result_verify',
  description:
    "Run the source checks again on a task's latest submission you may see (or the one named) and record the outcome. VERIFIED means the configured checks passed, not that the conclusion is true.",
  args: {
    task_id: taskIdArg,
    submission_id: z
      .string()
      .regex(/^sub_[0-9A-Za-z]{1,64}$/, 'a submission id starts with sub_')
      .optional()
      .describe('A submission of the task (sub_…); omitted, the latest you may see.'),
  },
  mutates: true,
  handler: async (ctx, input) => reverify(ctx.ex, ctx.services.reading, ctx.caller, input, ctx.clock.now()),
});

const evidenceSubmit = campaignTool({
  name: 'evidence_submit',
  description:
    "Share stored evidence you may see (one of your reads) with the campaign, optionally for a task. Who sees it follows the campaign's visibility mode. Reads made under a lease are shared automatically.",
  args: {
    evidence_id: evidenceIdArg,
    task_id: taskIdArg.optional(),
    note: longText(2_000).optional().describe('Why it matters (up to 2,000 characters).'),
  },
  mutates: true,
  handler: async (ctx, input) =>
    submitEvidence(ctx.ex, ctx.services.reading, ctx.caller, input, ctx.clock.now()),
});

export { evidenceSubmit, resultVerify, taskComplete };
