import { DomainError } from '../kernel/errors.ts';
import { ParserBusy } from './types.ts';

/**
 * A full parser pool as the caller is told it: DEGRADED_MODE with when to retry, and whose share
 * is in use (OWNER: the caller's own work; INSTANCE: the whole pool). One wording for every job a
 * caller waits on outside the read path (which records a receipt of its own, reading/denials.ts).
 */
export function degradedOf(err: ParserBusy): DomainError {
  return new DomainError(
    'DEGRADED_MODE',
    err.share === 'OWNER'
      ? `Your share of the parser and OCR capacity is in use by your own work; retry in ${err.retryAfterSeconds} seconds.`
      : `The parser and OCR capacity is busy; retry in ${err.retryAfterSeconds} seconds.`,
    { retry_after_seconds: err.retryAfterSeconds, share: err.share },
  );
}

/** Runs a parser-pool job; a full pool is thrown as degradedOf says. */
export async function busyAsDegraded<T>(job: () => Promise<T>): Promise<T> {
  try {
    return await job();
  } catch (err) {
    throw err instanceof ParserBusy ? degradedOf(err) : err;
  }
}
