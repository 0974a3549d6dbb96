import { z } from 'zod';
import { defineOperation } from '../../operations/index.ts';
import { MEMBER_VISIBLE_WHEN, whenMember } from '../policy.ts';
import { campaignIdArg, evidenceIdArg, leaseIdArg, longText, taskIdArg } from '../schemas.ts';
import type { CampaignCtx } from '../services.ts';
import { completeTask, reverify } from './completion.ts';
import { submitEvidence } from './evidence-share.ts';

/** Handing in results and sharing evidence. */

const MAX_EVIDENCE = 20;

const taskComplete = defineOperation({
  name: 'task_complete',
  group: 'Campaigns',
  description:
    'Submit the result of a task you hold. The summary states the conclusion with a verbatim quotation (20+ characters, in quotation marks) of the source beside the claim it supports; every such quotation is looked up in the attached evidence. Returns matched_quotes, unmatched_quotes, evidence_completeness and the next actor and action. VERIFIED means the configured checks passed, not that the conclusion is true; a failed check keeps your lease so you can resubmit.',
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
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
    })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    return completeTask(ctx.ex, ctx.services.reading, ctx.caller, input, ctx.clock.now());
  },
});

const resultVerify = defineOperation({
  name: 'result_verify',
  group: 'Campaigns',
  description:
    "Run the source checks again on a task's latest submission you may see (or the one named) and record the outcome. VERIFIED means the configured checks passed, not that the conclusion is true.",
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      task_id: taskIdArg,
      submission_id: z
        .string()
        .regex(/^sub_[0-9A-Za-z]{1,64}$/, 'a submission id starts with sub_')
        .optional()
        .describe('A submission of the task (sub_…); omitted, the latest you may see.'),
    })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) => {
    return reverify(ctx.ex, ctx.services.reading, ctx.caller, input, ctx.clock.now());
  },
});

const evidenceSubmit = defineOperation({
  name: 'evidence_submit',
  group: 'Campaigns',
  description:
    "Share stored evidence you may see (one of your reads) with the campaign, optionally for a task. Who sees it follows the campaign's visibility mode. Reads made under a lease are shared automatically.",
  input: z
    .object({
      campaign_id: campaignIdArg.optional(),
      evidence_id: evidenceIdArg,
      task_id: taskIdArg.optional(),
      note: longText(2_000).optional().describe('Why it matters (up to 2,000 characters).'),
    })
    .strict(),
  mutates: true,
  visibleWhen: MEMBER_VISIBLE_WHEN,
  visibility: whenMember,
  handler: async (ctx: CampaignCtx, input) =>
    submitEvidence(ctx.ex, ctx.services.reading, ctx.caller, input, ctx.clock.now()),
});

export { evidenceSubmit, resultVerify, taskComplete };
