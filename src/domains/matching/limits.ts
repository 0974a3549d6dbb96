import type { PublishedLimit } from '../../kernel/limits.ts';

/** Matching's numbers (SPEC Limits, and Cairn's own bounds on requests: docs/matching.md). */
export const MATCHING_LIMITS = {
  responseReason: { minChars: 1, maxChars: 2_000 },
  profileHours: 168,
  /** Cairn's own bounds on matching requests (docs/matching.md). */
  request: { expiryHours: 72, maxOpenPerRequester: 20 },
  /** matching_watch's wait (campaign_mail_wait waits as long). */
  longPollSeconds: 25,
} as const;

const L = MATCHING_LIMITS;

/** What `/v1/public/limits` publishes of matching (the area's `limits`). */
export const PUBLISHED_MATCHING_LIMITS: PublishedLimit[] = [
  {
    area: 'matching response_reason',
    limit: '1-2,000 characters',
    values: { min_chars: L.responseReason.minChars, max_chars: L.responseReason.maxChars },
  },
  {
    area: 'Matching profile',
    limit: 'expires in at most 168 hours',
    values: { hours: L.profileHours },
  },
  {
    area: 'Matching request',
    limit: 'expires 72 hours after it was made; at most 20 open requests per requester',
    values: {
      expiry_hours: L.request.expiryHours,
      max_open_per_requester: L.request.maxOpenPerRequester,
    },
  },
  {
    area: 'campaign_mail_wait, matching_watch',
    limit: 'up to 25 seconds',
    values: { seconds: L.longPollSeconds },
  },
];
