import { z } from 'zod';
import { DomainError } from '../../../kernel/errors.ts';
import { plainText } from '../../../kernel/plain-text.ts';

/**
 * Task conditions (SPEC Task.conditions; terms in docs/campaign-tasks.md). The schema accepts
 * every key as optional so that a missing term can be reported the way SPEC asks, as
 * INCOMPLETE with the list of missing terms, rather than as a schema error; unknown keys are
 * still refused by the strict object.
 */

const term = (what: string) =>
  plainText(0, 2_000).trim().describe(`${what} (plain text, up to 2,000 characters).`);

export const REQUIRED_TERMS = [
  'available_data',
  'authorized_scope',
  'deliverable',
  'reproduction_steps',
  'time_budget_minutes',
  'stop_conditions',
  'reviewer',
] as const;

export const conditionsArg = z
  .object({
    available_data: term('What data and sources the worker starts from'),
    authorized_scope: term('What the worker may read or touch, and what is out of scope'),
    deliverable: term('What is handed in'),
    reproduction_steps: term('How a reviewer can reproduce the result'),
    time_budget_minutes: z
      .number()
      .int()
      .min(1)
      .max(10_080)
      .describe('Minutes from claim to the fixed execution_deadline, 1-10080 (one week).'),
    stop_conditions: term('When the worker must stop and report instead of going on'),
    reviewer: term('Who reviews the result (an agent id, a role, or the owner)'),
    max_spend_usd: z
      .number()
      .min(0)
      .max(1_000_000)
      .describe('Spend cap in USD: funded reward plus platform fee, not model cost.'),
    rework_limit: z.number().int().min(0).max(20).describe('How many reworks may be asked (default 2).'),
    reward_terms: term('How a reward, if any, is earned'),
    participation: z
      .enum(['CAMPAIGN', 'OPEN'])
      .describe('CAMPAIGN (default): members claim it; OPEN: it may be offered for open pickup.'),
    publish_contract: z
      .boolean()
      .describe('Whether these conditions may be shown publicly with the task (default false).'),
  })
  .partial()
  .strict()
  .describe(
    'Terms of the task. Required: available_data, authorized_scope, deliverable, reproduction_steps, time_budget_minutes, stop_conditions, reviewer; a missing one is refused as INCOMPLETE with details.missing.',
  );

export type ConditionsInput = z.infer<typeof conditionsArg>;

/** Conditions with every required term present and the defaults filled in: what is stored. */
export interface Conditions {
  available_data: string;
  authorized_scope: string;
  deliverable: string;
  reproduction_steps: string;
  time_budget_minutes: number;
  stop_conditions: string;
  reviewer: string;
  max_spend_usd?: number;
  rework_limit: number;
  reward_terms?: string;
  participation: 'CAMPAIGN' | 'OPEN';
  publish_contract: boolean;
}

/**
 * The complete conditions, or INCOMPLETE listing every required term that is missing or blank
 * (a blank text term says nothing, so it counts as missing).
 */
export function completeConditions(input: ConditionsInput, taskId?: string): Conditions {
  const missing = REQUIRED_TERMS.filter((name) => {
    const value = input[name];
    return value === undefined || (typeof value === 'string' && value.length === 0);
  });
  if (missing.length > 0) {
    throw new DomainError(
      'INCOMPLETE',
      `The task conditions are missing required terms: ${missing.join(', ')}.`,
      {
        missing,
        required: [...REQUIRED_TERMS],
        ...(taskId ? { task_id: taskId } : {}),
      },
      {
        next: `Add every term in details.missing to conditions and call ${taskId ? 'task_edit' : 'task_publish'} again.`,
      },
    );
  }
  const c = input as Required<Pick<ConditionsInput, (typeof REQUIRED_TERMS)[number]>> & ConditionsInput;
  return {
    available_data: c.available_data,
    authorized_scope: c.authorized_scope,
    deliverable: c.deliverable,
    reproduction_steps: c.reproduction_steps,
    time_budget_minutes: c.time_budget_minutes,
    stop_conditions: c.stop_conditions,
    reviewer: c.reviewer,
    ...(c.max_spend_usd !== undefined ? { max_spend_usd: c.max_spend_usd } : {}),
    rework_limit: c.rework_limit ?? 2,
    ...(c.reward_terms ? { reward_terms: c.reward_terms } : {}),
    participation: c.participation ?? 'CAMPAIGN',
    publish_contract: c.publish_contract ?? false,
  };
}

/** The stored conditions of a task, read back (they were completed before being stored). */
export function storedConditions(raw: Record<string, unknown>): Conditions {
  return raw as unknown as Conditions;
}
