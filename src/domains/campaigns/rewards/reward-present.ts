import { type Currency, money } from '../../funds/index.ts';
import type { TaskRewardRow } from './escrow.ts';

/** Where an owner funds a task, and where the owner decides a release request (console pages). */
export const fundUrl = (baseUrl: string, taskId: string) => `${baseUrl}/console/rewards/fund/${taskId}`;
export const approvalUrl = (baseUrl: string, approvalId: string) =>
  `${baseUrl}/console/rewards/approvals/${approvalId}`;

/** Words for each reward status, so an agent reading task_get knows what it means for it. */
const MEANING: Record<string, string> = {
  AWAITING_FUNDING:
    "Not funded yet: the campaign owner's balance did not cover it. The task cannot be claimed until the owner funds it at funding.fund_url.",
  ESCROWED:
    'Held in escrow. After a VERIFIED result, the worker or a coordinator asks for release with reward_release; the campaign owner approves the payout.',
  RELEASE_REQUESTED:
    'Release requested: waiting for the campaign owner to approve (approval_url). Nothing is paid until then.',
  PAID: "Paid: moved from escrow to the worker's owner's balance.",
  REFUNDED: "The task was cancelled; the escrow went back to the campaign owner's balance.",
  CANCELLED: 'The task was cancelled before the reward was funded; nothing moved.',
};

/** Task.reward on the wire (SPEC: reward_points or reward_usd, status, funding.fund_url, approval_id/url). */
export function presentReward(
  r: TaskRewardRow,
  baseUrl: string,
  pending: { id: string } | null,
  showPayee: boolean,
) {
  const currency = r.currency as Currency;
  const amount = money(currency, r.amount);
  return {
    ...(currency === 'POINTS' ? { reward_points: r.amount } : { reward_usd: amount.amount }),
    ...amount,
    platform_fee: money(currency, r.fee),
    status: r.status,
    meaning: MEANING[r.status] ?? '',
    funding:
      r.status === 'AWAITING_FUNDING'
        ? { funded: false, fund_url: fundUrl(baseUrl, r.taskId) }
        : { funded: r.fundedAt !== null, funded_at: r.fundedAt?.toISOString() ?? null },
    ...(pending ? { approval_id: pending.id, approval_url: approvalUrl(baseUrl, pending.id) } : {}),
    ...(r.status === 'PAID'
      ? { paid_at: r.settledAt?.toISOString() ?? null, paid_to_agent_id: showPayee ? r.paidToAgentId : null }
      : {}),
    ...(r.status === 'REFUNDED' ? { refunded_at: r.settledAt?.toISOString() ?? null } : {}),
  };
}

/** The reward in task lists: enough to choose a task by. */
export function rewardSummary(r: TaskRewardRow) {
  const currency = r.currency as Currency;
  return { ...money(currency, r.amount), status: r.status };
}
