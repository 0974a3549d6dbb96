import { DomainError, declareErrors } from '../../kernel/errors.ts';
import { type Currency, formatMoney } from './money.ts';

/** The funds area's own refusal codes. */
export const FUNDS_ERRORS = declareErrors('funds', {
  INSUFFICIENT_FUNDS: {
    httpStatus: 409,
    retryable: true,
    otherReaders: 'WAIT_FOR_OWNER',
    when: "The owner's balance in that currency does not cover the movement (points and dollars are never converted).",
    next: 'Ask the operator to credit the balance (cairn funds add), then try again; details.shortfall says how much is missing.',
  },
  OPERATOR_REQUIRED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'Only an operator of this Cairn credits balances (owners listed in CAIRN_OPERATOR_EMAILS, or the first owner when none are listed).',
    next: 'Ask the operator to credit the balance (cairn funds add, or the operator page of the console).',
  },
});

declare module '../../kernel/errors.ts' {
  interface AreaErrorCodes extends Record<keyof typeof FUNDS_ERRORS, true> {}
}

export function insufficientFunds(currency: Currency, balance: number, needed: number): DomainError {
  return new DomainError(
    'INSUFFICIENT_FUNDS',
    `The balance is ${formatMoney(currency, balance)}; ${formatMoney(currency, needed)} is needed.`,
    {
      currency,
      balance_minor_units: balance,
      needed_minor_units: needed,
      shortfall_minor_units: needed - balance,
    },
  );
}
