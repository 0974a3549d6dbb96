/** The outbound fetcher's bounds on one read (SPEC leaves them to us); reading publishes them. */
export const FETCH_LIMITS = {
  responseBytes: 12 * 1024 * 1024,
  redirects: 5,
} as const;
