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

const MAX_PROBLEMS = 10;
// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Strings no tool or route accepts, wherever they sit in a JSON value (keys too): a NUL, which
 * PostgreSQL text and jsonb cannot hold (so it would fail deep down, as an internal error a
 * retry never fixes), and lone UTF-16 surrogates, which are not text and which encoders turn
 * into U+FFFD, so two different strings would become one (two idempotency keys colliding).
 * One rule at the edge for every input instead of one per field. Iterative, like the depth check.
 */
export function illFormedStrings(value: unknown, root: string): ValidationDetail[] {
  const problems: ValidationDetail[] = [];
  const stack: Array<[unknown, Array<string | number>]> = [[value, [root]]];
  const check = (s: string, loc: Array<string | number>, what: string) => {
    if (s.includes('\u0000')) {
      problems.push({ loc, msg: `${what} must not contain NUL (U+0000)`, type: 'nul_character' });
    } else if (LONE_SURROGATE.test(s)) {
      problems.push({
        loc,
        msg: `${what} must be well-formed Unicode (no lone surrogates)`,
        type: 'lone_surrogate',
      });
    }
  };
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    const [current, loc] = stack.pop()!;
    if (typeof current === 'string') check(current, loc, 'the string');
    else if (Array.isArray(current)) {
      for (const [i, v] of current.entries()) stack.push([v, [...loc, i]]);
    } else if (ArrayBuffer.isView(current)) {
      // Raw bytes (a Buffer a route keeps unparsed, like the mail callbacks') hold no strings;
      // walking them entry by entry would cost one object per byte.
    } else if (current !== null && typeof current === 'object') {
      for (const [k, v] of Object.entries(current)) {
        check(k, [...loc, k], 'the key');
        stack.push([v, [...loc, k]]);
      }
    }
  }
  return problems;
}
