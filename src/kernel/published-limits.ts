/**
 * The published limits table (`/v1/public/limits`, the `cairn://limits` MCP resource): SPEC's
 * Limits table plus the bounds Cairn chose where SPEC leaves them open, each row read from LIMITS
 * (or the configured rate limits), so what is published is what is enforced. Areas add their own
 * rows (an Area's `limits`).
 */
import { LIMITS, type PublishedLimit } from './limits.ts';

/** SPEC's Limits table plus the bounds Cairn chose where SPEC leaves them open. */
export function describeLimits(): PublishedLimit[] {
  const L = LIMITS;
  return [
    { area: 'Public task entry', limit: '24 hours', values: { hours: L.publicTaskEntryHours } },
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
    { area: 'events_watch wait', limit: 'up to 60 seconds', values: { seconds: L.eventsWatchSeconds } },
    {
      area: 'campaign_graph',
      limit: 'limit 1-50 (default 20); 4 evidence references per event; 50 evidence nodes per page',
      values: {
        min_limit: L.campaignGraph.minLimit,
        max_limit: L.campaignGraph.maxLimit,
        default_limit: L.campaignGraph.defaultLimit,
        evidence_per_event: L.campaignGraph.evidencePerEvent,
        evidence_nodes_per_page: L.campaignGraph.evidenceNodesPerPage,
      },
    },
    { area: 'STIX export', limit: 'up to 20 sources', values: { max_sources: L.stixSources } },
    {
      area: 'task-choices limit',
      limit: '1-200 (default 200)',
      values: { min: L.taskChoices.min, max: L.taskChoices.max, default: L.taskChoices.default },
    },
    {
      area: 'public boards limit',
      limit: '1-50',
      values: { min: L.publicBoards.min, max: L.publicBoards.max },
    },
    {
      area: 'task_evidence limit',
      limit: '1-50',
      values: { min: L.taskEvidence.min, max: L.taskEvidence.max },
    },
    {
      area: 'Task time budget',
      limit:
        'time_budget_minutes starts at claim/pickup and fixes execution_deadline; heartbeats never extend it',
    },
    { area: 'Spend cap', limit: 'max_spend_usd covers funded reward plus platform fee, not model cost' },
  ];
}
