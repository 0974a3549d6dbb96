import { z } from 'zod';
import { csrf } from '../../../web/console/fields.ts';
import { IDENTITY_LIMITS } from '../credentials/limits.ts';

/** Every console form, bounded; messages are written for the person who filled it in. */

const email = z
  .string({ message: 'Enter your email address.' })
  .trim()
  .min(1, 'Enter your email address.')
  .max(IDENTITY_LIMITS.email.maxChars, 'That email address is too long.');
const password = z
  .string({ message: 'Enter your password.' })
  .min(1, 'Enter your password.')
  .max(IDENTITY_LIMITS.password.maxChars, 'That password is too long.');
const next = z.string().max(512).optional();
const displayName = z
  .string({ message: 'Enter a name.' })
  .trim()
  .min(1, 'Enter a name.')
  .max(
    IDENTITY_LIMITS.displayName.maxChars,
    `The name must be at most ${IDENTITY_LIMITS.displayName.maxChars} characters.`,
  );
const days = (min: number, max: number) =>
  z
    .string({ message: `Enter a number of days from ${min} to ${max}.` })
    .trim()
    .regex(/^\d{1,4}$/, `Enter a whole number of days from ${min} to ${max}.`)
    .transform(Number)
    .pipe(z.number().min(min, `At least ${min} day.`).max(max, `At most ${max} days.`));

export const signInForm = z.object({ csrf, email, password, next }).strict();

export const signUpForm = z
  .object({
    csrf,
    email,
    password,
    password_repeat: z.string({ message: 'Repeat the password.' }).max(IDENTITY_LIMITS.password.maxChars),
  })
  .strict()
  .refine((f) => f.password === f.password_repeat, 'The two passwords differ.');

export const modeForm = z
  .object({ csrf, mode: z.enum(['READ', 'CAMPAIGN', 'NONE'], 'Choose READ, CAMPAIGN or NONE.') })
  .strict();

export const suspendForm = z
  .object({
    csrf,
    reason: z
      .string()
      .trim()
      .min(1, 'Give a reason: the identity is told it.')
      .max(500, 'At most 500 characters.'),
  })
  .strict();

/** The Arena activation per identity: the box ticked or not. */
export const renameForm = z.object({ csrf, display_name: displayName }).strict();

export const messageForm = z
  .object({
    csrf,
    text: z
      .string()
      .trim()
      .min(1, 'Write a message.')
      .max(
        IDENTITY_LIMITS.messageContent.maxChars,
        `A message is at most ${IDENTITY_LIMITS.messageContent.maxChars} characters.`,
      ),
  })
  .strict();

export const revokeForm = z
  .object({
    csrf,
    confirm: z.literal('yes', 'Tick the box to confirm that every credential of this identity should stop.'),
  })
  .strict();

/** Bootstrap tokens can be exchanged until they expire, so their life is short. */
export const BOOTSTRAP_DAYS = IDENTITY_LIMITS.bootstrapDays;

export const createIdentityForm = z
  .object({
    csrf,
    display_name: displayName,
    runtime: z
      .string({ message: 'Enter the runtime.' })
      .trim()
      .min(1, 'Enter the runtime (the agent program, for example a coding assistant).')
      .max(
        IDENTITY_LIMITS.runtime.maxChars,
        `The runtime must be at most ${IDENTITY_LIMITS.runtime.maxChars} characters.`,
      ),
    days: days(BOOTSTRAP_DAYS.min, BOOTSTRAP_DAYS.max),
  })
  .strict();

export const projectKeyForm = z
  .object({ csrf, days: days(IDENTITY_LIMITS.projectKeyDays.min, IDENTITY_LIMITS.projectKeyDays.max) })
  .strict();

export const ownerTokenForm = z
  .object({
    csrf,
    name: z
      .string({ message: 'Enter a name.' })
      .trim()
      .min(1, 'Enter a name.')
      .max(
        IDENTITY_LIMITS.ownerTokenName.maxChars,
        `The name must be at most ${IDENTITY_LIMITS.ownerTokenName.maxChars} characters.`,
      ),
    days: days(IDENTITY_LIMITS.ownerTokenDays.min, IDENTITY_LIMITS.ownerTokenDays.max),
  })
  .strict();

export const bootstrapForm = z.object({ csrf, days: days(BOOTSTRAP_DAYS.min, BOOTSTRAP_DAYS.max) }).strict();

export const pairDecisionForm = z
  .object({
    csrf,
    code: z.string({ message: 'The pairing code is missing.' }).max(32, 'That is not a pairing code.'),
    decision: z.enum(['approve', 'decline'], 'Press Approve or Decline.'),
    activate_read: z.literal('on').optional(),
  })
  .strict();
