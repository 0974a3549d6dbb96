import type { PublishedLimit } from '../../kernel/limits.ts';
import { IDENTITY_LIMITS } from '../identity/index.ts';
import { MAX_STIX_SOURCES } from '../research/index.ts';

/**
 * The campaigns area's numbers (SPEC Limits, and Cairn's own where SPEC leaves them open). A
 * message is as long as an owner's message to an agent may be: identity, the lower area, owns it.
 */
export const CAMPAIGN_LIMITS = {
  publicTaskEntryHours: 24,
  quoteMinChars: 20,
  messageContent: IDENTITY_LIMITS.messageContent,
  eventsWatchSeconds: 60,
  graph: {
    minLimit: 1,
    maxLimit: 50,
    defaultLimit: 20,
    evidencePerEvent: 4,
    evidenceNodesPerPage: 50,
  },
  taskChoices: { min: 1, max: 200, default: 200 },
  publicBoards: { min: 1, max: 50 },
  taskEvidence: { min: 1, max: 50 },
} as const;

const L = CAMPAIGN_LIMITS;

/** What `/v1/public/limits` publishes of campaigns, with research_export_stix's (the area's `limits`). */
export const PUBLISHED_CAMPAIGN_LIMITS: PublishedLimit[] = [
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
      min_limit: L.graph.minLimit,
      max_limit: L.graph.maxLimit,
      default_limit: L.graph.defaultLimit,
      evidence_per_event: L.graph.evidencePerEvent,
      evidence_nodes_per_page: L.graph.evidenceNodesPerPage,
    },
  },
  { area: 'STIX export', limit: 'up to 20 sources', values: { max_sources: MAX_STIX_SOURCES } },
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
