import { z } from 'zod';
import { DomainError } from '../../kernel/errors.ts';
import { SKILL_LIMITS } from './limits.ts';

/**
 * The context every skill read names (SPEC Skills): whose standing it is read under. It is a JSON
 * string (so it travels as one query parameter), checked here once and then against the
 * database on every read (access.ts).
 */

export const SCOPES = ['OWN', 'CAMPAIGN', 'TASK', 'ARENA_RUN', 'ARENA_REVIEW'] as const;
export type Scope = (typeof SCOPES)[number];

export type SkillContext =
  | { scope: 'OWN' }
  | { scope: 'CAMPAIGN'; campaign_id: string }
  | { scope: 'TASK'; task_id: string }
  | { scope: 'ARENA_RUN'; run_id: string }
  | { scope: 'ARENA_REVIEW'; publication_id: string };

export const OWN: SkillContext = { scope: 'OWN' };

const id = (prefix: string) =>
  z
    .string()
    .max(SKILL_LIMITS.list.idChars)
    .regex(new RegExp(`^${prefix}_[0-9A-Za-z]{1,90}$`), `an id starting ${prefix}_`);

const shape = z.discriminatedUnion('scope', [
  z.object({ scope: z.literal('OWN') }).strict(),
  z.object({ scope: z.literal('CAMPAIGN'), campaign_id: id('cmp') }).strict(),
  z.object({ scope: z.literal('TASK'), task_id: id('task') }).strict(),
  z.object({ scope: z.literal('ARENA_RUN'), run_id: id('arun') }).strict(),
  z.object({ scope: z.literal('ARENA_REVIEW'), publication_id: id('pub') }).strict(),
]);

const EXAMPLES =
  '{"scope":"OWN"}, {"scope":"CAMPAIGN","campaign_id":"cmp_…"}, {"scope":"TASK","task_id":"task_…"}, {"scope":"ARENA_RUN","run_id":"arun_…"}, {"scope":"ARENA_REVIEW","publication_id":"pub_…"}';

/** The argument every skill read takes (a JSON string ≤ 512 characters). */
export const contextArg = z
  .string()
  .min(2)
  .max(SKILL_LIMITS.list.contextChars)
  .describe(`Whose standing you read under, as a JSON string: ${EXAMPLES}.`);

/** The context a string names; VALIDATION_FAILED naming what is wrong with it otherwise. */
export function parseContext(raw: string | undefined, fallback?: SkillContext): SkillContext {
  if (raw === undefined) {
    if (fallback) return fallback;
    throw invalid('context is required here.');
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalid('context is not JSON.');
  }
  const parsed = shape.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'context';
    throw invalid(`${where}: ${issue?.message ?? 'not a context'}.`);
  }
  return parsed.data;
}

function invalid(why: string): DomainError {
  return new DomainError(
    'VALIDATION_FAILED',
    `The context is not valid: ${why} Scopes are ${SCOPES.join(', ')}.`,
    { detail: [{ loc: ['context'], msg: why, type: 'context' }], examples: EXAMPLES },
    { next: `Send context as a JSON string, e.g. ${EXAMPLES}.` },
  );
}

/** The context as the JSON string a caller sends back (for next steps and cursor bindings). */
export function contextString(context: SkillContext): string {
  return JSON.stringify(context);
}
