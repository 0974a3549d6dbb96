import type { PublishedLimit } from '../../../kernel/limits.ts';

/**
 * The identity area's numbers: how long its credentials live (SPEC Limits, and Cairn's own where
 * SPEC leaves them open) and the bounds of what an identity or an owner types in. They sit beside
 * the credentials most of them bound; other areas read them through identity's index.ts.
 */
export const IDENTITY_LIMITS = {
  accessTokenMinutes: 60,
  refreshTokenDays: 7,
  oauthConnectionDays: 7,
  refreshDuplicateWindowSeconds: 2,
  /** Cairn's own bounds on its foundation surface (SPEC leaves them to us). */
  projectKeyDays: { default: 30, min: 1, max: 365 },
  bootstrapDays: { default: 7, min: 1, max: 30 },
  /** Owner API tokens (cd_own_): days of life and the length of their name. */
  ownerTokenDays: { default: 30, min: 1, max: 365 },
  ownerTokenName: { maxChars: 100 },
  aboutYou: { shortTextChars: 200, purposeChars: 1_000, contacts: 5, contactChars: 300 },
  displayName: { maxChars: 120 },
  runtime: { maxChars: 120 },
  email: { maxChars: 254 },
  password: { minChars: 10, maxChars: 1_024 },
  /** An owner's message to an agent, as long as a campaign message (campaigns publishes it). */
  messageContent: { maxChars: 8_000, maxBytes: 16 * 1024 },
} as const;

const L = IDENTITY_LIMITS;

/** What `/v1/public/limits` publishes of them (the area's `limits`). */
export const PUBLISHED_IDENTITY_LIMITS: PublishedLimit[] = [
  { area: 'Access token', limit: '60 minutes', values: { minutes: L.accessTokenMinutes } },
  { area: 'Refresh token', limit: '7 days', values: { days: L.refreshTokenDays } },
  {
    area: 'OAuth connection',
    limit: 'up to 7 days from approval; refresh does not extend',
    values: { days: L.oauthConnectionDays },
  },
  {
    area: 'Refresh duplicate retry window',
    limit: 'two seconds',
    values: { seconds: L.refreshDuplicateWindowSeconds },
  },
  {
    area: 'Project key',
    limit: 'expiry chosen by the owner: 1-365 days, default 30',
    values: {
      default_days: L.projectKeyDays.default,
      min_days: L.projectKeyDays.min,
      max_days: L.projectKeyDays.max,
    },
  },
];
