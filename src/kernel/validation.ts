import type { z } from 'zod';

/** One problem in the HTTPValidationError shape: where, what, and which kind of check failed. */
export interface ValidationDetail {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/** Maps zod issues to `{loc, msg, type}` entries under a root such as `body` or `arguments`. */
export function toValidationDetail(issues: readonly z.core.$ZodIssue[], root: string): ValidationDetail[] {
  return issues.map((issue) => ({
    loc: [root, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))],
    msg: issue.message,
    type: issue.code,
  }));
}
