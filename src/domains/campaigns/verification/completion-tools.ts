import { z } from 'zod';
import { BODY_LIMITS } from '../../../web/http/limits.ts';
import { importFileArgs } from '../../reading/index.ts';
import { campaignTool } from '../campaign-tool.ts';
import { afterSubmit } from '../next-steps.ts';
import { evidenceIdArg, leaseIdArg, longText, mailIdArg, taskIdArg } from '../schemas.ts';
import { completeTask, reverify } from './completion.ts';
import { importEvidence, submitEvidence, submitForm } from './evidence-share.ts';
import { submitMailEvidence } from './mail-evidence.ts';

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
    const submitted = await completeTask(
      ctx.ex,
      ctx.services.reading,
      ctx.caller,
      input,
      ctx.clock,
      ctx.services.campaignDeps.completionGate,
    );
    const paid = 'paid_quotes' in submitted;
    return { ...submitted, next_steps: afterSubmit(submitted, input.leaseId, paid) };
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

const MCP_BODY_MIB = BODY_LIMITS.requestBodyBytes / (1024 * 1024);

const evidenceSubmit = campaignTool({
  name: 'evidence_submit',
  description:
    "Share stored evidence you may see (one of your reads) with the campaign, optionally for a task. Who sees it follows the campaign's visibility mode. Reads made under a lease are shared automatically. " +
    "Or turn a mail of the campaign's mailbox into evidence (mail_id, needs your mail grant): provenance RECEIVED_MAIL, trust_label UNTRUSTED_EMAIL, so quotations of it verify; its text is then shared with the campaign like any evidence. " +
    'Or import a file instead: omit evidence_id and send data_base64 (any file) or text (a text file), with format, title, source_date, source_url, authorized and ocr as the console import takes them (PDF, PNG, JPEG, text, HTML, snapshot, log, CycloneDX or SPDX JSON). ' +
    `It becomes evidence with provenance AGENT_SUBMITTED, trust_label UNVERIFIED (nobody checked where it came from), in a campaign you are an active member of (and for task_id, a task you can see). The whole MCP request is limited to ${MCP_BODY_MIB} MiB, so a file must fit in it (base64 adds a third); larger files (up to 12 MiB) are imported by the campaign's owner in the console (POST /v1/research/imports).`,
  args: {
    evidence_id: evidenceIdArg
      .optional()
      .describe('Stored evidence to share (evd_…); omit it when you import a file.'),
    mail_id: mailIdArg
      .optional()
      .describe(
        'A campaign mail to turn into evidence (mail_…, from campaign_mail_list); alone, without evidence_id or a file.',
      ),
    task_id: taskIdArg.optional(),
    note: longText(2_000).optional().describe('Why it matters (up to 2,000 characters).'),
    ...importFileArgs,
  },
  mutates: true,
  handler: async (ctx, input) => {
    const form = submitForm(input);
    if (form === 'import') return importEvidence(ctx.ex, ctx.services.imports, ctx.caller, input);
    if (form === 'mail') {
      return submitMailEvidence(
        ctx.ex,
        ctx.caller,
        { ...input, mailId: input.mailId! },
        ctx.clock.now(),
        ctx.services.campaignDeps.campaignMail,
      );
    }
    return submitEvidence(
      ctx.ex,
      ctx.services.reading,
      ctx.caller,
      { ...input, evidenceId: input.evidenceId! },
      ctx.clock.now(),
    );
  },
});

export { evidenceSubmit, resultVerify, taskComplete };
