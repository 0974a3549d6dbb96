import type { DomainError } from '../../../kernel/errors.ts';
import { html, type SafeHtml } from '../../../web/console/html.ts';
import { csrfField, notice, page, time } from '../../../web/console/layout.ts';
import { options, type Signed } from '../../../web/console/views.ts';
import { CURRENCIES, type FundsService, formatMoney, type Money } from '../../funds/index.ts';
import type { RewardOwnerService } from '../rewards/owner-rewards.ts';

/**
 * The owner's rewards pages: the balance with its postings, release requests waiting for a
 * decision and, for an operator, the credit form; and the funding page of one task (the
 * `fund_url` agents are given). The approval page is in rewards-approval-views.ts.
 */

export type Balance = Awaited<ReturnType<FundsService['balance']>>;
export type Postings = Awaited<ReturnType<FundsService['postings']>>;
export type Approvals = Awaited<ReturnType<RewardOwnerService['approvals']>>;
export type Funding = Awaited<ReturnType<RewardOwnerService['funding']>>;

/**
 * The next move after a refusal, in words for the person at the console. The catalogue's own
 * advice is written for agents (tool names, `details.…`), so only these codes of the rewards
 * flow get a sentence; any other refusal shows its message alone, as every console page does.
 */
const NEXT_MOVE: Record<string, string> = {
  INSUFFICIENT_FUNDS:
    'Ask the operator of this Cairn to credit your balance, then fund the task from its funding page.',
  OPERATOR_REQUIRED: 'Ask the operator of this Cairn to credit the balance.',
  APPROVAL_NOT_PENDING:
    'Nothing is left to decide here: the page shows how the request ended. A new request follows a new verified result.',
  REWARD_OVER_LIMIT: 'Publish a smaller reward, in the unit of the campaign budget, or none.',
  IDEMPOTENCY_KEY_REUSED: 'Reload the page for a fresh form and enter the credit again.',
};

/** A refusal as the console shows it: the message, then the next move where there is one. */
export function refusal(err: DomainError): string {
  const next = NEXT_MOVE[err.code];
  return next ? `${err.message} ${next}` : err.message;
}

/** An amount for people: "$12.50", "1,200 points". */
export const shown = (m: Money) => formatMoney(m.currency, m.minor_units);

/** What each movement of a balance was, in words. */
const MOVEMENT: Record<string, string> = {
  CREDIT: 'Credit',
  ESCROW: 'Reward and fee to escrow',
  RELEASE: 'Reward paid to you',
  REFUND: 'Escrow and fee refunded',
};

export interface RewardsPageView extends Signed {
  balance: Balance;
  pending: Approvals;
  postings: Postings;
  /** The postings cursor the page was asked with (a link back to the newest). */
  cursor: string | undefined;
  /** For an operator: the credit form's reference, made when the page is rendered, and what was typed. */
  operator: { reference: string; values: Record<string, string> } | null;
  flash?: string | undefined;
  error?: string | undefined;
}

export function rewardsPage(v: RewardsPageView): SafeHtml {
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: 'Rewards',
    current: 'rewards',
    body: html`<h1>Rewards</h1>
      <p class="sub">Your balance, the release requests waiting for your decision and every movement of your balance. Points and US dollars are kept apart and never converted.</p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      ${balancePanel(v.balance)}
      ${pendingPanel(v.pending)}
      ${postingsPanel(v)}
      ${v.operator ? creditPanel(v.csrf, v.operator) : ''}`,
  });
}

function balancePanel(b: Balance): SafeHtml {
  const amounts = b.balances.map(
    (m) =>
      html`<dt>${m.currency === 'USD' ? 'US dollars' : 'Points'}</dt><dd id="balance-${m.currency}">${shown(m)}</dd>`,
  );
  return html`<section class="panel" id="balance">
    <h2>Balance</h2>
    <dl class="facts">${amounts}
      <dt>Platform fee</dt><dd>${b.platform_fee_pct}% of each reward, taken when the reward is funded and returned with it if the task is cancelled</dd>
    </dl>
    <h3>Adding funds</h3>
    <p>${b.how_to_add_funds}</p>
  </section>`;
}

function pendingPanel(p: Approvals): SafeHtml {
  const rows = p.approvals.map(
    (a) => html`<tr>
      <td><a href="/console/rewards/approvals/${a.approval_id}">${a.task_title}</a><br><code>${a.task_id}</code></td>
      <td><a href="/console/campaigns/${a.campaign_id}">${a.campaign_title}</a></td>
      <td>${shown(a.reward)}</td>
      <td><code>${a.worker_agent_id}</code></td>
      <td>${time(a.requested_at)}</td>
      <td><a class="button secondary" href="/console/rewards/approvals/${a.approval_id}">Review</a></td>
    </tr>`,
  );
  const body = rows.length
    ? html`<table><thead><tr><th>Task</th><th>Campaign</th><th>Reward</th><th>Worker</th><th>Asked</th><th></th></tr></thead>
        <tbody>${rows}</tbody></table>
        ${p.next_cursor ? html`<p class="hint">More requests wait: they show here as you decide these.</p>` : ''}`
    : html`<p class="hint">None: no release request waits for your decision.</p>`;
  return html`<section class="panel" id="approvals">
    <h2>Release requests waiting for you</h2>
    <p class="hint">A worker or a coordinator asked for the reward of a verified task. Nothing is paid until you approve; you can also return the result for rework.</p>
    ${body}
  </section>`;
}

function postingsPanel(v: RewardsPageView): SafeHtml {
  const rows = v.postings.postings.map(
    (p) => html`<tr>
      <td>${time(p.at)}</td>
      <td>${MOVEMENT[p.kind] ?? p.kind}</td>
      <td><span class="badge${p.direction === 'IN' ? ' on' : ''}">${p.direction}</span> ${shown(p)}</td>
      <td>${p.task_id ? html`<code>${p.task_id}</code>` : ''}${p.campaign_id ? html`<p class="hint"><a href="/console/campaigns/${p.campaign_id}">campaign</a></p>` : ''}</td>
      <td><code>${p.by}</code></td>
      <td>${p.note ?? ''}</td>
    </tr>`,
  );
  const next = v.postings.next_cursor;
  return html`<section class="panel" id="postings">
    <h2>Postings</h2>
    <p class="hint">Every movement of your balance, newest first.</p>
    ${v.cursor ? html`<p class="hint"><a href="/console/rewards#postings">← Newest postings</a></p>` : ''}
    ${
      rows.length
        ? html`<table><thead><tr><th>When</th><th>Movement</th><th>Amount</th><th>Task</th><th>By</th><th>Note</th></tr></thead>
          <tbody>${rows}</tbody></table>`
        : html`<p class="hint">No movements yet.</p>`
    }
    ${next ? html`<p class="actions"><a class="button secondary" href="/console/rewards?cursor=${encodeURIComponent(next)}#postings">Older postings</a></p>` : ''}
  </section>`;
}

function creditPanel(csrf: string, op: { reference: string; values: Record<string, string> }): SafeHtml {
  const val = op.values;
  return html`<section class="panel" id="credit">
    <h2>Credit an owner</h2>
    <p class="hint">You operate this Cairn, so you add funds to owners’ balances (as <code>cairn funds add</code> does). Record here what was paid to you outside Cairn; nothing is converted.</p>
    <form method="post" action="/console/rewards/credits">
      ${csrfField(csrf)}
      <input type="hidden" name="reference" value="${op.reference}">
      <label for="credit_email">Owner’s email</label>
      <input id="credit_email" name="owner_email" type="email" required maxlength="254" value="${val.owner_email ?? ''}">
      <div class="row">
        <div><label for="credit_amount">Amount</label>
          <input id="credit_amount" name="amount" type="text" inputmode="decimal" required maxlength="20" value="${val.amount ?? ''}"></div>
        <div><label for="credit_currency">Currency</label>
          <select id="credit_currency" name="currency">${options(
            CURRENCIES.map(
              (c) => [c, c === 'USD' ? 'USD (dollars and cents)' : 'POINTS (whole points)'] as const,
            ),
            val.currency ?? 'POINTS',
          )}</select></div>
      </div>
      <label for="credit_note">Note (optional)</label>
      <input id="credit_note" name="note" type="text" maxlength="500" value="${val.note ?? ''}">
      <p class="hint">The owner sees the note among their postings. This form carries a reference of its own: sent twice, it credits once.</p>
      <div class="actions"><button type="submit">Credit</button></div>
    </form>
  </section>`;
}

export interface FundPageView extends Signed {
  funding: Funding;
  howToAdd: string;
  flash?: string | undefined;
  error?: string | undefined;
}

/** What a reward's status means to the owner (the wire's `meaning` is written for agents). */
const REWARD_STATUS_TEXT: Record<string, string> = {
  AWAITING_FUNDING: 'Not funded yet: nobody can claim the task until it is.',
  ESCROWED: 'Held in escrow: it is paid when you approve a verified result.',
  RELEASE_REQUESTED: 'Release requested: it waits for your approval (see Rewards).',
  PAID: 'Paid to the worker’s owner.',
  REFUNDED: 'The task was cancelled; the escrow and its fee went back to your balance.',
  CANCELLED: 'The task was cancelled before the reward was funded; nothing moved.',
};

/** One task's reward: what it costs, the balance, and the form to fund it when the balance covers it. */
export function fundPage(v: FundPageView): SafeHtml {
  const f = v.funding;
  const r = f.reward;
  const waiting = r.status === 'AWAITING_FUNDING';
  let action: SafeHtml;
  if (f.can_fund_now) {
    action = html`<form method="post" action="/console/rewards/fund/${f.task_id}">
      ${csrfField(v.csrf)}
      <p class="hint">Moves ${shown(f.needed)} from your balance: the reward into escrow, the fee to the platform. Agents can claim the task at once; the reward is paid only when you approve a verified result.</p>
      <div class="actions"><button type="submit">Fund from balance</button></div>
    </form>`;
  } else if (waiting) {
    action = html`<h3>Adding funds</h3>
      <p>Your balance is ${shown(f.shortfall)} short of what this reward needs. ${v.howToAdd}</p>`;
  } else {
    action = html`<p class="hint">This reward is not waiting for funds: nothing to do here.</p>`;
  }
  return page({
    owner: v.owner,
    csrf: v.csrf,
    title: `Fund · ${f.title}`,
    current: 'rewards',
    body: html`<p class="hint"><a href="/console/campaigns/${f.campaign_id}">← Back to the campaign</a> · <a href="/console/rewards">Rewards</a></p>
      <h1>Fund a task’s reward</h1>
      <p class="sub">${f.title} · <code>${f.task_id}</code></p>
      ${v.flash ? notice('ok', v.flash) : ''}${v.error ? notice('error', v.error) : ''}
      <section class="panel" id="funding">
        <dl class="facts">
          <dt>Reward</dt><dd>${shown(r)}</dd>
          <dt>Platform fee</dt><dd>${shown(r.platform_fee)}</dd>
          <dt>Needed</dt><dd>${shown(f.needed)}</dd>
          <dt>Your balance</dt><dd>${shown(f.balance)}</dd>
          <dt>Missing</dt><dd id="shortfall">${waiting ? shown(f.shortfall) : html`<span class="hint">nothing</span>`}</dd>
          <dt>Status</dt><dd><span class="badge${waiting ? ' bad' : ' on'}">${r.status}</span> ${REWARD_STATUS_TEXT[r.status] ?? ''}</dd>
        </dl>
        ${action}
      </section>`,
  });
}
