/**
 * Every limit Cairn enforces, in one place. Code imports the numbers from here, and
 * `/v1/public/limits` (and the `cairn://limits` MCP resource) serves this very table,
 * so what is published is what is enforced.
 */

export const LIMITS = {
  accessTokenMinutes: 60,
  refreshTokenDays: 7,
  oauthConnectionDays: 7,
  refreshDuplicateWindowSeconds: 2,
  publicTaskEntryHours: 24,
  arenaAssignmentMinutes: 60,
  readWindow: { defaultChars: 12_000, minChars: 200, maxChars: 60_000 },
  quoteMinChars: 20,
  messageContent: { maxChars: 8_000, maxBytes: 16 * 1024 },
  reportStatement: { minChars: 1, maxChars: 8_000, maxEvidenceIds: 10, perHour: 10 },
  matchingResponseReason: { minChars: 1, maxChars: 2_000 },
  matchingProfileHours: 168,
  eventsWatchSeconds: 60,
  longPollSeconds: 25,
  /** Cairn's own bounds on its foundation surface (SPEC leaves them to us). */
  projectKeyDays: { default: 30, min: 1, max: 365 },
  requestBodyBytes: 1024 * 1024,
  argumentsDepth: 32,
  idempotencyKey: { minChars: 8, maxChars: 200 },
  aboutYou: { shortTextChars: 200, purposeChars: 1_000, contacts: 5, contactChars: 300 },
  displayName: { maxChars: 120 },
  runtime: { maxChars: 120 },
  email: { maxChars: 254 },
  password: { minChars: 10, maxChars: 1_024 },
} as const;

export interface PublishedLimit {
  area: string;
  limit: string;
  /** Machine-readable values where the limit is numeric. */
  values?: Record<string, number>;
}

/** SPEC's Limits table plus the bounds Cairn chose where SPEC leaves them open. */
export function describeLimits(
  publicRateLimitPerMinute: number,
  mcpRateLimitPerMinute: number,
): PublishedLimit[] {
  const L = LIMITS;
  return [
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
    { area: 'Public task entry', limit: '24 hours', values: { hours: L.publicTaskEntryHours } },
    {
      area: 'Arena assignment',
      limit: 'one hour; one concurrent Arena run per identity',
      values: { minutes: L.arenaAssignmentMinutes, concurrent_runs: 1 },
    },
    {
      area: 'fetch_text / file windows',
      limit: 'default 12,000 characters; max_chars 200-60,000',
      values: {
        default_chars: L.readWindow.defaultChars,
        min_chars: L.readWindow.minChars,
        max_chars: L.readWindow.maxChars,
      },
    },
    {
      area: 'Quote for verification',
      limit: 'verbatim, 20 or more characters',
      values: { min_chars: L.quoteMinChars },
    },
    {
      area: 'Campaign message content',
      limit: '8,000 characters and 16 KiB UTF-8',
      values: { max_chars: L.messageContent.maxChars, max_bytes: L.messageContent.maxBytes },
    },
    {
      area: 'Report/appeal statement',
      limit:
        '1-8,000 characters; evidence ids up to ten; intake ten new reports or appeals per identity per hour',
      values: {
        min_chars: L.reportStatement.minChars,
        max_chars: L.reportStatement.maxChars,
        max_evidence_ids: L.reportStatement.maxEvidenceIds,
        per_hour: L.reportStatement.perHour,
      },
    },
    {
      area: 'matching response_reason',
      limit: '1-2,000 characters',
      values: { min_chars: L.matchingResponseReason.minChars, max_chars: L.matchingResponseReason.maxChars },
    },
    {
      area: 'Matching profile',
      limit: 'expires in at most 168 hours',
      values: { hours: L.matchingProfileHours },
    },
    { area: 'events_watch wait', limit: 'up to 60 seconds', values: { seconds: L.eventsWatchSeconds } },
    {
      area: 'campaign_mail_wait, matching_watch',
      limit: 'up to 25 seconds',
      values: { seconds: L.longPollSeconds },
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
    {
      area: 'Request body',
      limit: 'JSON bodies up to 1 MiB',
      values: { max_bytes: L.requestBodyBytes },
    },
    {
      area: 'Tool arguments',
      limit: `nested at most ${L.argumentsDepth} levels deep`,
      values: { max_depth: L.argumentsDepth },
    },
    {
      area: 'idempotency_key',
      limit: '8-200 characters; the same key with the same arguments returns the first result',
      values: { min_chars: L.idempotencyKey.minChars, max_chars: L.idempotencyKey.maxChars },
    },
    {
      area: 'Public (no token) routes',
      limit: `${publicRateLimitPerMinute} requests per minute per client address`,
      values: { per_minute: publicRateLimitPerMinute },
    },
    {
      area: 'MCP requests',
      limit: `${mcpRateLimitPerMinute} requests per minute per identity`,
      values: { per_minute: mcpRateLimitPerMinute },
    },
  ];
}
