/**
 * Whether an error means the database cannot be reached now, as opposed to a bug (issue 14
 * item 2): such a failure is answered 503 SERVICE_UNAVAILABLE with a retry hint, never 500
 * INTERNAL. Drivers and drizzle wrap errors, so the whole cause chain is read.
 */

/** Seconds a refused caller is told to wait: a restart or failover is usually over in seconds. */
export const RETRY_AFTER_SECONDS = 5;

// SQLSTATE: class 08 (connection exceptions), 57P01-57P03 (shutdown, crash, cannot connect
// now), 53300 (too many connections), 55000 with "not currently accepting connections".
const UNAVAILABLE_STATES = /^(?:08...|57P0[123]|53300)$/;
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|not currently accepting connections|Client has encountered a connection error|Connection closed|the database system is (?:starting up|shutting down)/i;

export function isDatabaseUnavailable(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || NETWORK_CODES.has(code))) return true;
    if (MESSAGES.test(current.message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The log level of a background job's failure: warn when the database cannot be reached (an
 * outage is expected now and then, and the job runs again on its next tick), error otherwise
 * (that is a bug someone should look at).
 */
export function jobFailureLevel(err: unknown): 'warn' | 'error' {
  return isDatabaseUnavailable(err) ? 'warn' : 'error';
}
