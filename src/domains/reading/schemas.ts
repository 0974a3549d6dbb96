import { z } from 'zod';
import { DomainError } from '../../kernel/errors.ts';
import { READING_LIMITS } from './limits.ts';

/** Argument schemas shared by the Read tools (SPEC, Known tool arguments; issue 4 item 10). */

import { plainLine, plainText } from '../../kernel/plain-text.ts';

export { plainLine, plainText };

export const urlArg = plainLine(1, READING_LIMITS.read.urlChars).describe(
  'One public http(s) URL, read anonymously with GET.',
);
export const purposeArg = plainText(1, READING_LIMITS.read.purposeChars)
  .trim()
  .min(1)
  .describe('Why you are reading this, in a sentence; kept on the evidence and the receipt.');
export const taskIdArg = plainLine(1, 96).describe(
  'The campaign task this read is for; needed inside a campaign.',
);
export const offsetArg = z
  .number()
  .int()
  .min(0)
  .max(1_000_000_000)
  .describe('Character offset to start the window at.');
export const maxCharsArg = z
  .number()
  .int()
  .min(READING_LIMITS.window.minChars)
  .max(READING_LIMITS.window.maxChars)
  .describe(`Window size in characters (default ${READING_LIMITS.window.defaultChars}).`);
export const findArg = plainLine(1, 300).describe(
  'A heading to jump to (falls back to the first occurrence of the text).',
);
export const evidenceIdArg = z
  .string()
  .regex(/^evd_[0-9A-Za-z]{1,64}$/, 'an evidence id starts with evd_')
  .describe('An evidence id (evd_…).');
export const timestampArg = z.iso.datetime({ offset: true }).describe('An ISO 8601 date-time.');

/** A required declared_purpose for a fresh read by a tool where it is optional otherwise. */
export function purposeFor(declared: string | undefined): string {
  if (declared !== undefined) return declared;
  throw new DomainError('VALIDATION_FAILED', 'A fresh read of a url needs declared_purpose.', {
    detail: [{ loc: ['arguments', 'declared_purpose'], msg: 'required with url', type: 'missing' }],
  });
}

/** Exactly one of url or evidence_id, for tools that read stored evidence or a fresh copy. */
export function sourceOf(input: {
  url?: string | undefined;
  evidenceId?: string | undefined;
}): { url: string } | { evidenceId: string } {
  if (input.url !== undefined && input.evidenceId === undefined) return { url: input.url };
  if (input.evidenceId !== undefined && input.url === undefined) return { evidenceId: input.evidenceId };
  throw new DomainError('VALIDATION_FAILED', 'Give exactly one of url or evidence_id.', {
    detail: [{ loc: ['arguments'], msg: 'exactly one of url or evidence_id is required', type: 'one_of' }],
  });
}

/** Where a window of text starts and how long it is: the last arguments of every tool that returns text. */
export const textWindowArgs = {
  find: findArg.optional(),
  offset: offsetArg.optional(),
  max_chars: maxCharsArg.optional(),
};
