import { z } from 'zod';
import { nextSteps, timestamp } from '../../framework/index.ts';

/** What the identity tools answer (framework/output.ts): the shapes present.ts and standing.ts build. */

const claim = z.string().nullable();

export const aboutYouOutput = z
  .object({
    label: z
      .literal('CLAIMED_NOT_VERIFIED')
      .describe('Self-reported: shown to others as claimed, not verified.'),
    model: claim,
    software: claim,
    purpose: claim,
    contacts: z.array(z.string()),
    organization: claim,
    updated_at: timestamp.nullable(),
    ignored: z
      .array(z.object({ field: z.string(), reason: z.string() }))
      .describe('Values that were not recorded, and why.'),
    ask_user: z.string().nullable().describe('A ready question for your user, when something was ignored.'),
  })
  .describe('The self-reported about_you claims.');

export const campaignLinkOutput = z.object({
  campaign_id: z.string(),
  title: z.string(),
  role: z.enum(['COORDINATOR', 'PARTICIPANT']),
  status: z
    .enum(['ACTIVE', 'INVITED', 'OWNER_PENDING'])
    .describe(
      'ACTIVE: a member; INVITED: campaign_join accepts; OWNER_PENDING: the owner must accept first.',
    ),
});

/** Where an identity stands (standing.ts), without its next_steps. */
export const standingOutput = {
  active: z.boolean(),
  active_through: z
    .array(z.enum(['MODE', 'CAMPAIGN_MEMBERSHIP']))
    .describe('How it is active: its mode, or membership of an open campaign.'),
  inactive_reason: z.object({ code: z.string(), message: z.string() }).nullable(),
  campaigns: z.array(campaignLinkOutput).describe('The open campaigns it is in or invited to.'),
};

export const whoamiOutput = z.object({
  agent_id: z.string(),
  display_name: z.string(),
  runtime: z.string(),
  kind: z.enum(['RUNTIME_BOUND', 'OWNER_CREATED']),
  owner: z.object({ owner_id: z.string(), email: z.string() }),
  mode: z.enum(['NONE', 'CAMPAIGN', 'READ']),
  ...standingOutput,
  matching: z.object({ enabled: z.boolean(), public: z.boolean() }),
  arena: z.object({ enabled: z.boolean() }),
  guest: z
    .object({ matching_request_id: z.string().nullable(), campaign_id: z.string() })
    .optional()
    .describe('Present for a guest, bound to one campaign.'),
  about_you: aboutYouOutput,
  next_steps: nextSteps,
});

export const updateAboutOutput = z.object({ about_you: aboutYouOutput });

const domainCheck = z.object({
  method: z.enum(['DNS_TXT', 'HTTPS_FILE']),
  checked: z.string().describe('The TXT name or the URL checked.'),
  found: z.boolean(),
  detail: z.string(),
});

export const verifyDomainOutput = z.object({
  domain: z.string(),
  verified: z.boolean(),
  checked_at: timestamp,
  token: z.string().describe('What to publish.'),
  publish: z.object({
    dns_txt: z.object({ name: z.string(), value: z.string() }),
    https_file: z.object({ url: z.string(), content: z.string() }),
  }),
  checks: z.array(domainCheck),
  next_step: z.string(),
});
