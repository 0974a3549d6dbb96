import { DomainError } from '../../kernel/errors.ts';
import { ParserBusy } from '../../parsing/types.ts';

/**
 * Runs a parser-pool job; a full pool is DEGRADED_MODE with when to retry, as for every job a
 * caller waits on outside the read path (which records a receipt of its own, see denials.ts).
 */
export async function busyAsDegraded<T>(job: () => Promise<T>): Promise<T> {
  try {
    return await job();
  } catch (err) {
    if (err instanceof ParserBusy) {
      throw new DomainError(
        'DEGRADED_MODE',
        err.share === 'OWNER'
          ? `Your share of the parser and OCR capacity is in use by your own work; retry in ${err.retryAfterSeconds} seconds.`
          : `The parser and OCR capacity is busy; retry in ${err.retryAfterSeconds} seconds.`,
        { retry_after_seconds: err.retryAfterSeconds, share: err.share },
      );
    }
    throw err;
  }
}
