/**
 * One row of the published limits table (`/v1/public/limits`, the `cairn://limits` MCP resource).
 * The numbers are their owners': each area publishes its rows (an Area's `limits`), read from the
 * numbers it enforces, and the catalogue orders them (LIMIT_ORDER in domains/catalog.ts).
 */
export interface PublishedLimit {
  area: string;
  limit: string;
  /** Machine-readable values where the limit is numeric. */
  values?: Record<string, number>;
}
