/**
 * Currencies and amounts. Points and US dollars are kept apart and never converted. Amounts
 * are integers in minor units (points, or cents) everywhere inside Cairn; the wire shows both
 * the decimal amount and the minor units, so nobody has to guess which one a number is.
 */

export const CURRENCIES = ['POINTS', 'USD'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Largest amount of one movement, in minor units: a billion dollars in cents, far inside 2^53. */
export const MAX_MINOR = 100_000_000_000;

const SCALE: Record<Currency, number> = { POINTS: 1, USD: 100 };

/**
 * Minor units of a decimal amount, or null when it has more decimals than the currency has. The
 * check is on the number's own decimal form (toFixed), so it holds for large amounts too, where
 * a fixed tolerance on amount × 100 would refuse valid cents or accept a third decimal.
 */
export function toMinor(currency: Currency, amount: number): number | null {
  if (!Number.isFinite(amount)) return null;
  const decimals = currency === 'USD' ? 2 : 0;
  const fixed = amount.toFixed(decimals);
  if (Number(fixed) !== amount) return null;
  return Math.round(Number(fixed) * SCALE[currency]);
}

export function fromMinor(currency: Currency, minor: number): number {
  return minor / SCALE[currency];
}

/** An amount on the wire. */
export interface Money {
  currency: Currency;
  amount: number;
  minor_units: number;
}

export function money(currency: Currency, minor: number): Money {
  return { currency, amount: fromMinor(currency, minor), minor_units: minor };
}

/** For people: "$12.50" or "1,200 points". */
export function formatMoney(currency: Currency, minor: number): string {
  if (currency === 'USD') {
    const sign = minor < 0 ? '-' : '';
    return `${sign}$${(Math.abs(minor) / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  }
  return `${minor.toLocaleString('en-US')} point${Math.abs(minor) === 1 ? '' : 's'}`;
}

/**
 * The platform fee on a reward, in minor units, rounded up (the fee is never less than the
 * published percentage). pct has at most two decimals, so the arithmetic is exact in integers.
 */
export function feeOf(minor: number, pct: number): number {
  const basisPoints = Math.round(pct * 100);
  return Math.ceil((minor * basisPoints) / 10_000);
}
