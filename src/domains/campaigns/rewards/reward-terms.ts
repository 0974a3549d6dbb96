import { and, eq, notInArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { type Currency, feeOf, formatMoney, MAX_MINOR, money, toMinor } from '../../funds/index.ts';
import type { Conditions } from '../core/conditions.ts';
import type { CampaignRow } from '../core/member.ts';
import { taskRewards } from './tables.ts';

/**
 * A task's reward as published (SPEC Task.reward, task_publish): points or dollars, never both,
 * and within the task's spend cap and the campaign's budget (SPEC Limits "Spend cap").
 */

export const rewardArgs = {
  reward_points: z
    .number()
    .int()
    .min(1)
    .max(MAX_MINOR)
    .optional()
    .describe(
      'A reward in points, escrowed from the campaign owner’s balance (coordinators only; not with reward_usd).',
    ),
  reward_usd: z
    .number()
    .min(0.01)
    .max(MAX_MINOR / 100)
    .optional()
    .describe(
      'A reward in US dollars, at most two decimals, escrowed from the campaign owner’s balance (coordinators only; not with reward_points).',
    ),
};

export interface Reward {
  currency: Currency;
  /** Minor units: points, or cents. */
  amount: number;
  fee: number;
}

/** The reward asked for, with the fee, or null; both units at once or a fraction of a cent is refused. */
export function rewardOf(
  input: { rewardPoints?: number | undefined; rewardUsd?: number | undefined },
  feePct: number,
): Reward | null {
  if (input.rewardPoints !== undefined && input.rewardUsd !== undefined) {
    throw new DomainError(
      'VALIDATION_FAILED',
      'Give reward_points or reward_usd, not both: points and dollars are kept apart.',
      { fields: ['reward_points', 'reward_usd'] },
    );
  }
  const currency: Currency | null =
    input.rewardPoints !== undefined ? 'POINTS' : input.rewardUsd !== undefined ? 'USD' : null;
  if (!currency) return null;
  const amount = toMinor(currency, (input.rewardPoints ?? input.rewardUsd) as number);
  if (amount === null || amount <= 0) {
    throw new DomainError('VALIDATION_FAILED', 'reward_usd has at most two decimals (whole cents).', {
      field: 'reward_usd',
    });
  }
  const fee = feeOf(amount, feePct);
  if (amount + fee > MAX_MINOR) {
    throw new DomainError(
      'VALIDATION_FAILED',
      'The reward plus the platform fee is larger than one movement may be.',
      {
        field: currency === 'USD' ? 'reward_usd' : 'reward_points',
        max_minor_units: MAX_MINOR,
      },
    );
  }
  return { currency, amount, fee };
}

/**
 * Refuses a reward that, with its fee, exceeds max_spend_usd (a dollar cap: it bounds dollar
 * rewards; points are not money and are never converted) or what is left of the campaign budget
 * in its unit. Rewards count against the budget until refunded.
 */
export async function requireWithinLimits(
  ex: Executor,
  campaign: CampaignRow,
  conditions: Conditions,
  reward: Reward,
): Promise<void> {
  requireWithinCap(conditions, reward);
  await requireWithinBudget(ex, campaign, reward);
}

/** max_spend_usd bounds a dollar reward with its fee (checked again when an unfunded task's conditions are edited). */
export function requireWithinCap(conditions: Conditions, reward: Reward): void {
  const total = reward.amount + reward.fee;
  if (reward.currency === 'USD' && conditions.max_spend_usd !== undefined) {
    const cap = Math.round(conditions.max_spend_usd * 100);
    if (total > cap) {
      throw new DomainError(
        'REWARD_OVER_LIMIT',
        `The reward plus the platform fee is ${formatMoney('USD', total)}, over this task's max_spend_usd of ${formatMoney('USD', cap)}.`,
        {
          limit: 'max_spend_usd',
          reward: money('USD', reward.amount),
          fee: money('USD', reward.fee),
          cap: money('USD', cap),
        },
      );
    }
  }
}

async function requireWithinBudget(ex: Executor, campaign: CampaignRow, reward: Reward): Promise<void> {
  const total = reward.amount + reward.fee;
  const budget = campaign.budget;
  if (!budget) return;
  const unit: Currency = budget.unit === 'USD' ? 'USD' : 'POINTS';
  if (unit !== reward.currency) {
    throw new DomainError(
      'REWARD_OVER_LIMIT',
      `The campaign budget is in ${unit === 'USD' ? 'dollars' : 'points'}; a reward in ${reward.currency === 'USD' ? 'dollars' : 'points'} cannot be counted against it (units are never converted).`,
      { limit: 'budget_unit', budget_unit: unit, reward_currency: reward.currency },
    );
  }
  // One publisher at a time per campaign budget: the sum below stays true until this commits.
  await ex.execute(sql`select pg_advisory_xact_lock(hashtext(${`cairn:budget:${campaign.id}`}))`);
  const [row] = await ex
    .select({ committed: sql<string | null>`sum(${taskRewards.amount} + ${taskRewards.fee})` })
    .from(taskRewards)
    .where(
      and(
        eq(taskRewards.campaignId, campaign.id),
        eq(taskRewards.currency, unit),
        notInArray(taskRewards.status, ['REFUNDED', 'CANCELLED']),
      ),
    );
  const committed = Number(row?.committed ?? 0);
  const limit = toMinor(unit, budget.amount) ?? Math.floor(budget.amount * (unit === 'USD' ? 100 : 1));
  if (committed + total > limit) {
    throw new DomainError(
      'REWARD_OVER_LIMIT',
      `The campaign budget is ${formatMoney(unit, limit)} and ${formatMoney(unit, committed)} of it is committed to rewards; ${formatMoney(unit, total)} does not fit.`,
      {
        limit: 'campaign_budget',
        budget: money(unit, limit),
        committed: money(unit, committed),
        left: money(unit, Math.max(0, limit - committed)),
        asked: money(unit, total),
      },
    );
  }
}
