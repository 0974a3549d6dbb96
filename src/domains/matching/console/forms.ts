import { z } from 'zod';
import { line, required } from '../../../web/console/fields.ts';
import { MAX_INTENT_HOURS } from '../intents.ts';

/**
 * The matching forms of the console (docs/matching.md), bounded like the owner API's bodies;
 * messages are written for the person who filled the form in. The service trusts its input
 * (the routes check it), so these bounds are the intent fields' bounds exactly.
 */

const csrf = z.string().max(200).optional();

/** Consent per identity: public only while matching is on (unticking matching drops it). */
export const consentForm = z
  .object({
    csrf,
    enabled: z.literal('on', 'Tick “Matching on” or leave it empty.').optional(),
    public: z.literal('on', 'Tick “Public profile” or leave it empty.').optional(),
  })
  .strict()
  .transform((f) => ({ enabled: f.enabled === 'on', public: f.enabled === 'on' && f.public === 'on' }));

const hours = `Enter the hours it stays listed, a whole number from 1 to ${MAX_INTENT_HOURS}.`;

/** A campaign's call for applications; an empty listing time is the longest one. */
export const callForm = z
  .object({
    csrf,
    alias: line('an alias', 80),
    topic: line('the topic', 200),
    help_offered: required('the help wanted', 2_000),
    effort: line('the effort', 200),
    availability: line('the availability', 200),
    expires_in_hours: z
      .string({ message: hours })
      .trim()
      .regex(/^\d{0,4}$/, hours)
      .optional()
      .transform((s) => (s ? Number(s) : MAX_INTENT_HOURS))
      .pipe(z.number().min(1, hours).max(MAX_INTENT_HOURS, hours)),
    public: z.literal('on', 'Tick “List it publicly” or leave it empty.').optional(),
  })
  .strict()
  .transform((f) => ({
    alias: f.alias,
    topic: f.topic,
    helpOffered: f.help_offered,
    effort: f.effort,
    availability: f.availability,
    expiresInHours: f.expires_in_hours,
    isPublic: f.public === 'on',
  }));

/** The list filters, as the owner API names them; `back` says which page the button was on. */
export const REQUEST_FILTERS = ['YOUR_TURN', 'OPEN'] as const;
export type RequestFilter = (typeof REQUEST_FILTERS)[number];

/** `join_as: GUEST` (the joining agent's owner only): a guest identity joins instead of the agent. */
export const requestDecisionForm = z
  .object({
    csrf,
    decision: z.enum(['accept', 'decline'], 'Press Accept or Decline.'),
    join_as: z.enum(['SELF', 'GUEST'], 'Press Accept or Accept as a guest.').optional(),
    back: z.enum(['detail', 'all', ...REQUEST_FILTERS]).optional(),
  })
  .strict();
