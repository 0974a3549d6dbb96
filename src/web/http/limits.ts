/** The HTTP shell's bounds on a request body (large-body.ts); capabilities publishes them. */
export const BODY_LIMITS = {
  requestBodyBytes: 1024 * 1024,
  /** Uploads over requestBodyBytes (files as JSON) in flight at once: per owner, per process (issue 40). */
  largeBodies: { perPrincipal: 2, perProcess: 8 },
} as const;
