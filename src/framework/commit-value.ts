import type { Placeholder, SQL } from 'drizzle-orm';

/**
 * A value of a mutation's answer that only the database knows at commit: the seq of a ledger
 * event sent with the COMMIT (campaigns' `appendEventAtCommit`). It is a scalar SQL expression,
 * evaluated by the statement that stores the answer for its idempotency key, after the event's
 * own statement; the caller then receives the answer exactly as it was stored.
 *
 * The storing statement is built once for each sequence of shapes and filled in per call
 * (storage/statement-template.ts), so a value comes as its `shape` (the same expression for the
 * same shape), the expression with a placeholder where its one value goes, and that value.
 */
export class CommitValue {
  constructor(
    readonly shape: string,
    readonly expression: (value: Placeholder) => SQL,
    readonly value: unknown,
  ) {}
}
