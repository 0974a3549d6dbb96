import type { SQL } from 'drizzle-orm';

/**
 * A value of a mutation's answer that only the database knows at commit: the seq of a ledger
 * event sent with the COMMIT (campaigns' `appendEventAtCommit`). `expression` is a scalar SQL
 * expression, evaluated by the statement that stores the answer for its idempotency key, after
 * the event's own statement; the caller then receives the answer exactly as it was stored.
 */
export class CommitValue {
  constructor(readonly expression: SQL) {}
}
