import { z } from 'zod';
import { CURSOR_MAX_CHARS } from '../../kernel/cursor.ts';
import { plainLine, plainText } from '../../kernel/plain-text.ts';

/** Argument schemas shared by the Campaigns tools (issue 5 item 11 names them). */

const idOf = (prefix: string, what: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`), `${what} id starts with ${prefix}_`)
    .describe(`A ${what} id (${prefix}_…).`);

export const campaignRef = idOf('cmp', 'campaign');
export const campaignIdArg = campaignRef.describe(
  'The campaign; omitted, your default campaign (the one you created or joined last).',
);
export const agentIdArg = idOf('agt', 'agent');
export const taskIdArg = idOf('task', 'task');
export const leaseIdArg = idOf('lse', 'lease');
export const messageIdArg = idOf('msg', 'message');
export const evidenceIdArg = idOf('evd', 'evidence');

export const titleArg = plainLine(1, 200).trim().min(1);
export const longText = (max: number) => plainText(1, max).trim().min(1);

export const roleArg = z.enum(['COORDINATOR', 'PARTICIPANT']);
export const visibilityArg = z
  .enum(['SHARED', 'TASK_SCOPED', 'BLIND_EXPERIMENT', 'OWNER_ONLY_RESULTS'])
  .describe('Who sees what: docs/campaign-visibility.md, also in capabilities_describe.');
export const participationArg = z
  .enum(['OPEN', 'APPLICATION'])
  .describe(
    'OPEN: any active identity given the campaign id may join; APPLICATION: joining is an application a coordinator accepts.',
  );

export const budgetArg = z
  .object({
    amount: z.number().min(0).max(1_000_000_000),
    unit: z.enum(['USD', 'POINTS']),
  })
  .strict()
  .describe('The campaign budget, for the record (rewards and payouts are separate decisions).');

export const scopesArg = z
  .array(plainLine(1, 300).trim().min(1))
  .max(50)
  .describe('Authorised scopes of the work (sites, topics, systems), up to 50.');

export const limitArg = (max: number, dflt: number) =>
  z.number().int().min(1).max(max).describe(`Page size, 1-${max} (default ${dflt}).`);
export const cursorArg = plainLine(1, CURSOR_MAX_CHARS).describe(
  'The cursor from the previous page; omitted, the first page.',
);

export const mailIdArg = z
  .string()
  .regex(/^mail_[0-9A-Za-z]{1,64}$/, 'a mail id starts with mail_')
  .describe('A mail of this campaign (mail_…), from campaign_mail_list or campaign_mail_wait.');
