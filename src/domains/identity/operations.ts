import { z } from 'zod';
import { defineOperation, type OperationContext, type Visibility } from '../../framework/index.ts';
import { DomainError } from '../../kernel/errors.ts';
import { ABOUT_FIELDS } from './about.ts';
import type { DomainVerifier } from './domain-verification.ts';
import type { IdentityService } from './identities.ts';
import { updateAboutOutput, verifyDomainOutput, whoamiOutput } from './outputs.ts';
import { inactiveReason } from './policy.ts';
import { presentAbout, presentWhoami } from './present.ts';
import type { Caller } from './types.ts';

type S = { identity: IdentityService };

export const ALWAYS: Visibility = {
  visible: true,
  why: 'Available to every authenticated identity, active or not.',
};

/** Visible once the owner activated a mode; otherwise says what is missing. */
export function whenActive(caller: Caller): Visibility {
  const reason = inactiveReason(caller.agent);
  return reason
    ? { visible: false, why: reason.message }
    : { visible: true, why: `Available because the identity is active (mode ${caller.agent.mode}).` };
}

const whoami = defineOperation({
  name: 'identity_whoami',
  group: 'Always',
  description:
    'Who this connection is: agent_id, display name, runtime, owner, mode, whether it is active (through its mode or campaign membership; why not), the campaigns it is in or invited to, the self-reported about_you claims, and next_steps naming the tools to call next.',
  input: z.object({}).strict(),
  mutates: false,
  visibleWhen: 'always',
  visibility: () => ALWAYS,
  output: whoamiOutput,
  handler: async (ctx: OperationContext<S>) =>
    presentWhoami(ctx.caller.agent, await ctx.services.identity.campaignLinks(ctx.ex, ctx.caller.agent.id)),
});

// Claims are parsed as `unknown` on purpose: a bad value is dropped and explained in
// about_you.ignored, not a failed call. The published schema still tells agents what fits.
const textClaim = (what: string) =>
  z.unknown().meta({
    type: ['string', 'null'],
    description: `${what}; null clears it. A bad value is ignored and explained.`,
  });

const updateAbout = defineOperation({
  name: 'identity_update_about',
  group: 'Identity',
  description:
    'Update self-reported claims (model, software, purpose, contacts, organization). Claims are labelled claimed-not-verified; bad values are dropped and explained in about_you.ignored; about_you.ask_user is a ready question for your user.',
  input: z
    .object({
      model: textClaim('The model you run on (up to 200 characters)').optional(),
      software: textClaim('Your client or agent software (up to 200 characters)').optional(),
      purpose: textClaim('What you are for (up to 1,000 characters)').optional(),
      contacts: z
        .unknown()
        .meta({
          anyOf: [{ type: 'array', items: { type: 'string' }, maxItems: 5 }, { type: 'null' }],
          description:
            'Up to 5 emails or https URLs; null clears them. A bad value is ignored and explained.',
        })
        .optional(),
      organization: textClaim('Your organization (up to 200 characters)').optional(),
    })
    .strict(),
  mutates: true,
  visibleWhen: 'the identity is active (the owner activated a mode)',
  visibility: whenActive,
  output: updateAboutOutput,
  handler: async (ctx: OperationContext<S>, input) => {
    if (!ABOUT_FIELDS.some((f) => f in input)) {
      throw new DomainError('VALIDATION_FAILED', 'Name at least one claim to update.', {
        detail: [
          { loc: ['arguments'], msg: `name at least one of ${ABOUT_FIELDS.join(', ')}`, type: 'custom' },
        ],
      });
    }
    return { about_you: presentAbout(await ctx.services.identity.updateAbout(ctx.ex, ctx.caller, input)) };
  },
});

const verifyDomain = defineOperation({
  name: 'identity_verify_domain',
  group: 'Identity',
  description:
    "Show that you control a domain. Answers with a token to publish as a DNS TXT record at _cairn-verify.<domain> or as https://<domain>/.well-known/cairn-verification.txt, checks both through Cairn's guarded resolver and fetcher, and reports what was checked and the result. Call again after publishing.",
  input: z
    .object({ domain: z.string().min(1).max(253).describe('A public domain name, e.g. example.org') })
    .strict(),
  // A check of the world, safe to repeat: it records only the latest result, so it takes no idempotency_key.
  mutates: false,
  visibleWhen: 'the identity is active (the owner activated a mode)',
  visibility: whenActive,
  output: verifyDomainOutput,
  handler: async (ctx: OperationContext<{ domains: DomainVerifier }>, input) =>
    ctx.services.domains.verify(ctx.caller, input.domain),
});

/** The identity tools; the catalogue puts them in SPEC's order. */
export const identityOperations = [whoami, updateAbout, verifyDomain];
