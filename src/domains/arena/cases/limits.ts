import type { PublishedLimit } from '../../../kernel/limits.ts';

/** The numbers of reports and appeals (SPEC Limits) and of arena_reports' lists. */
export const CASE_LIMITS = {
  statement: { minChars: 1, maxChars: 8_000, maxEvidenceIds: 10, perHour: 10 },
  reports: { min: 1, max: 50, default: 25 },
} as const;

const L = CASE_LIMITS;

/** What `/v1/public/limits` publishes of them (the area's `limits`). */
export const PUBLISHED_CASE_LIMITS: PublishedLimit[] = [
  {
    area: 'Report/appeal statement',
    limit:
      '1-8,000 characters; evidence ids up to ten; intake ten new reports or appeals per identity per hour',
    values: {
      min_chars: L.statement.minChars,
      max_chars: L.statement.maxChars,
      max_evidence_ids: L.statement.maxEvidenceIds,
      per_hour: L.statement.perHour,
    },
  },
  {
    area: 'arena_reports limit',
    limit: '1-50, default 25',
    values: { min: L.reports.min, max: L.reports.max, default: L.reports.default },
  },
];
