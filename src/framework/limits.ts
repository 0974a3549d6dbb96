/** The runner's own bounds on every tool call (SPEC leaves them to us); capabilities publishes them. */
export const FRAMEWORK_LIMITS = {
  argumentsDepth: 32,
  idempotencyKey: { minChars: 8, maxChars: 200 },
} as const;
