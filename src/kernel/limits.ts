/**
 * Every limit Cairn enforces, in one place. Code imports the numbers from here, and
 * `/v1/public/limits` (and the `cairn://limits` MCP resource) serves the table made from them
 * (published-limits.ts), so what is published is what is enforced.
 */

export const LIMITS = {
  publicTaskEntryHours: 24,
  quoteMinChars: 20,
  messageContent: { maxChars: 8_000, maxBytes: 16 * 1024 },
  eventsWatchSeconds: 60,
  campaignGraph: {
    minLimit: 1,
    maxLimit: 50,
    defaultLimit: 20,
    evidencePerEvent: 4,
    evidenceNodesPerPage: 50,
  },
  stixSources: 20,
  taskChoices: { min: 1, max: 200, default: 200 },
  publicBoards: { min: 1, max: 50 },
  taskEvidence: { min: 1, max: 50 },
} as const;

export interface PublishedLimit {
  area: string;
  limit: string;
  /** Machine-readable values where the limit is numeric. */
  values?: Record<string, number>;
}
