/**
 * Every limit Cairn enforces, in one place. Code imports the numbers from here, and
 * `/v1/public/limits` (and the `cairn://limits` MCP resource) serves the table made from them
 * (published-limits.ts), so what is published is what is enforced.
 */

export const LIMITS = {
  publicTaskEntryHours: 24,
  arenaAssignmentMinutes: 60,
  quoteMinChars: 20,
  messageContent: { maxChars: 8_000, maxBytes: 16 * 1024 },
  reportStatement: { minChars: 1, maxChars: 8_000, maxEvidenceIds: 10, perHour: 10 },
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
  skillsList: {
    minLimit: 1,
    maxLimit: 100,
    defaultLimit: 25,
    qChars: 300,
    cursorChars: 4_096,
    compatibilityChars: 500,
    contextChars: 512,
    pathChars: 240,
    idChars: 96,
  },
  arenaReports: { min: 1, max: 50, default: 25 },
  /** Cairn's own bounds on skill packages (docs/skills.md). */
  skillPackage: {
    fileBytes: 1_048_576,
    packageBytes: 8_388_608,
    files: 256,
    importBytes: 8_388_608,
    descriptionChars: 1_024,
    tags: 10,
    tagChars: 40,
    purposeChars: 500,
    noteChars: 2_000,
  },
  /** skill_file_bytes_get windows: base64 of the largest stays within the 60,000-character window. */
  skillFileBytesWindow: { min: 150, max: 45_000, default: 9_000 },
} as const;

export interface PublishedLimit {
  area: string;
  limit: string;
  /** Machine-readable values where the limit is numeric. */
  values?: Record<string, number>;
}
