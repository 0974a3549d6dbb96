import { ParseRefusal } from './types.ts';

/** How the parser pool reports a job that failed (pool.ts). */

/** A thread that died (out of memory, crashed) surfaces as one of these from piscina. */
const isWorkerDeath = (error: unknown): boolean =>
  error instanceof Error &&
  (/^ERR_WORKER_/.test(String((error as { code?: unknown }).code ?? '')) ||
    /worker.*(exit|terminat)/i.test(error.message));

/** Piscina's errors for a job refused or cut off because the pool is closing. */
const isShutdown = (error: unknown): boolean =>
  error instanceof Error && (error.name === 'AbortError' || error.message === 'Terminating worker thread');

export const closedError = (): Error => new Error('The parser pool is closed.');

/**
 * What a failed job is reported as: a ParseRefusal, except when the pool itself was closed.
 * Anything unexpected (a thread that died, a result too deeply nested to send back between
 * threads) is UNREADABLE_CONTENT with the original as `cause`, never a raw error.
 */
export function failureOf(
  error: unknown,
  job: { timedOut: boolean; limitMs: number; closed: boolean },
): Error {
  if (error instanceof ParseRefusal) return error;
  if (job.timedOut) {
    return new ParseRefusal('PARSE_TIMEOUT', `Parsing took longer than ${job.limitMs} ms.`, {
      timeout_ms: job.limitMs,
    });
  }
  if (job.closed && isShutdown(error)) {
    const closed = closedError();
    closed.cause = error;
    return closed;
  }
  const refusal = new ParseRefusal(
    'UNREADABLE_CONTENT',
    isWorkerDeath(error)
      ? 'The parser stopped while reading the content.'
      : 'The content could not be parsed.',
    {},
  );
  refusal.cause = error;
  return refusal;
}
