import { type Config, loadConfig } from '../config/config.ts';
import {
  areasOn as areasOnOf,
  cliServicesOf,
  commandsOf,
  errorsOf,
  limitsOf,
  operationsFor as operationsOf,
  orderOperations as orderOf,
  tablesOf,
} from '../framework/catalogue.ts';
import type {
  Area,
  CliCore,
  CliDoor,
  Doors,
  Operation,
  ServicesOf,
  UnionToIntersection,
} from '../framework/index.ts';
import type { PublishedLimit } from '../kernel/limits.ts';
import { arenaArea } from './arena/index.ts';
import { campaignsArea } from './campaigns/index.ts';
import { capabilitiesArea } from './capabilities/index.ts';
import { fundsArea } from './funds/index.ts';
import { identityArea } from './identity/index.ts';
import { mailArea } from './mail/index.ts';
import { matchingArea } from './matching/index.ts';
import { readingArea } from './reading/index.ts';
import { skillsArea } from './skills/index.ts';

/**
 * The catalogue: every area Cairn is made of, and the order their tools and error codes are
 * published in. Adding an area is one line in AREAS (docs/architecture.md).
 */

/** Every area, in the order they start and their error codes are listed. */
export const AREAS = [
  identityArea,
  capabilitiesArea,
  readingArea,
  fundsArea,
  campaignsArea,
  mailArea,
  matchingArea,
  skillsArea,
  arenaArea,
] as const;

/**
 * The configuration with every area's settings fragment: what `cairn serve` and the tests start
 * from. An area's variables are its own (`settings.ts` beside its `index.ts`).
 */
export function loadAppConfig(env: Record<string, string | undefined> = process.env): Config {
  return loadConfig(env, SETTINGS);
}

/** Every area's settings fragment, in the catalogue's order. */
export const SETTINGS = AREAS.flatMap((area) => ((area as Area).settings ? [(area as Area).settings!] : []));

/** The services operations reach through their context, and transports through the app. */
export type AppServices = ServicesOf<typeof AREAS>;

/**
 * Every area's doors name the services they use (`Doors<N>`); the joined services must offer
 * them all. A door that names a service no area offers fails to compile here.
 */
type DoorNeeds = UnionToIntersection<
  (typeof AREAS)[number] extends infer A ? (A extends { doors: Doors<infer N> } ? N : never) : never
>;
const doorsServed: AppServices extends DoorNeeds ? true : never = true;
void doorsServed;

/** The services the areas' operator commands act through, joined (each area's `cli.ts`). */
export type CliServices = UnionToIntersection<
  (typeof AREAS)[number] extends infer A ? (A extends { cli: CliDoor<infer P, unknown> } ? P : never) : never
>;

/** Likewise: a command that names a CLI service no area builds fails to compile here. */
type CliNeeds = UnionToIntersection<
  (typeof AREAS)[number] extends infer A ? (A extends { cli: CliDoor<unknown, infer N> } ? N : never) : never
>;
const cliServed: CliServices extends CliNeeds ? true : never = true;
void cliServed;

/** Every area's operator commands (`cairn <words>`), in the areas' order. */
export const CLI_COMMANDS = commandsOf(AREAS);

/** Every area's CLI services, built for one command on the opened database. */
export const cliServices = (core: CliCore): CliServices => cliServicesOf(AREAS, core) as CliServices;

/**
 * SPEC's tool table, group by group, in its order: `tools/list`, `/v1/public/tools` and the
 * tool reference list tools so. Tools of areas still to land are named here already, so a new
 * area takes its place without touching this list.
 */
// biome-ignore format: SPEC's table, a few names a line, group by group.
export const TOOL_ORDER = [
  // Always
  'identity_whoami', 'capabilities_describe',
  // Read
  'web_search', 'fetch_text', 'fetch_snapshot', 'extract_table', 'extract_json', 'citation_get',
  'diff_since', 'policy_explain', 'evidence_locate', 'evidence_view', 'evidence_search',
  // Campaigns
  'campaign_create', 'agent_directory', 'campaign_invite', 'campaign_join', 'campaign_metrics',
  'task_publish', 'campaign_list', 'campaign_status', 'campaign_graph', 'task_list', 'task_get',
  'task_claim', 'task_heartbeat', 'task_release', 'task_complete', 'task_delegate', 'task_edit',
  'task_history', 'task_assign', 'message_append', 'proposal_create', 'proposal_respond',
  'decision_record', 'context_read', 'events_watch', 'evidence_submit', 'evidence_get',
  'result_verify', 'message_send', 'finding_create', 'finding_get', 'finding_list',
  'finding_review', 'research_export_stix', 'reward_release', 'campaign_mail_address',
  'campaign_mail_request_access', 'campaign_mail_access_status', 'campaign_mail_list',
  'campaign_mail_get', 'campaign_mail_wait',
  // Endings (issue 39): not in SPEC's table, after the Campaigns tools it lists.
  'campaign_leave', 'campaign_member_remove',
  // Arena
  'arena_report', 'arena_reports', 'arena_appeal', 'arena_start', 'arena_publications',
  'arena_publication_review', 'superchallenge_create', 'artifact_submit', 'arena_skill_share',
  'lab.search', 'lab.fetch', 'lab.table',
  // Matching
  'matching_list', 'matching_profile', 'matching_interest', 'matching_requests', 'matching_get',
  'matching_respond', 'matching_watch',
  // Open pickup
  'public_task_take', 'public_task_work',
  // Skills
  'skill_list', 'skill_get', 'skill_file_get', 'skill_file_bytes_get', 'skill_package_get',
  'skill_draft_create', 'skill_draft_get', 'skill_draft_update', 'skill_draft_file_put',
  'skill_draft_file_remove', 'skill_draft_validate', 'skill_version_publish',
  'campaign_skill_propose', 'campaign_skill_decide', 'campaign_skill_update',
  'campaign_skill_remove', 'task_skill_attach', 'task_skill_update', 'task_skill_detach',
  'skill_usage_report',
  // Identity
  'identity_update_about', 'identity_verify_domain',
  // Workspace tools
  'workspace.list', 'workspace.read', 'workspace.write', 'workspace.delete', 'workspace.diff',
  'workspace.thread', 'sandbox.exec',
] as const;

/** The areas' operations in TOOL_ORDER; a tool missing from it, or offered twice, stops the start. */
export function orderOperations(areas: typeof AREAS): Array<Operation<AppServices>> {
  return orderOf<AppServices>(areas, TOOL_ORDER);
}

export const OPERATIONS = orderOperations(AREAS);

/**
 * The published limits table (`/v1/public/limits`, the `cairn://limits` resource), row by row in
 * its order, by each row's `area`: SPEC's Limits table, the bounds Cairn chose where SPEC leaves
 * them open, then the Arena's own. Each area publishes its rows (an Area's `limits`), read from
 * the numbers it enforces; a row missing here, or listed and published by no area, stops the start.
 */
// biome-ignore format: the table's rows, a few a line, in the order they are published.
export const LIMIT_ORDER = [
  'Access token', 'Refresh token', 'OAuth connection', 'Refresh duplicate retry window',
  'Public task entry', 'Arena assignment', 'fetch_text / file windows', 'Quote for verification',
  'Campaign message content', 'Report/appeal statement', 'matching response_reason',
  'Matching profile', 'Matching request', 'events_watch wait', 'campaign_mail_wait, matching_watch',
  'campaign_graph', 'Mailbox', 'Research imports', 'Reading (fetch_text and other fresh reads)',
  'web_search', 'STIX export', 'Preview page', 'task-choices limit', 'public boards limit',
  'task_evidence limit', 'Skills list parameters', 'Skill packages', 'skill_file_bytes_get window',
  'arena_reports limit', 'Task time budget', 'Spend cap', 'Project key', 'Request body',
  'Tool arguments', 'idempotency_key', 'Public (no token) routes', 'MCP requests', 'MCP subscriptions',
  // The Arena's own (docs/arena.md).
  'Arena workspace', 'Arena sandbox.exec', 'Arena publications', 'Arena superchallenges',
] as const;

/** Every area's published limits in LIMIT_ORDER, for this deployment (its rate limits). */
export const publishedLimits = (config: Config): PublishedLimit[] => limitsOf(AREAS, LIMIT_ORDER, config);

/** The areas this deployment has on: one switched off plugs nothing into the others (extensions). */
export const areasOn = (config: Config): ReadonlyArray<Area> => areasOnOf(AREAS, config);

/** The operations as this deployment offers them (an area switched off: listed, hidden from all). */
export const operationsFor = (config: Config): Array<Operation<AppServices>> =>
  operationsOf(AREAS, OPERATIONS, config);

/** Every table: the drizzle schema the database handle is opened with. */
export const TABLES = tablesOf(AREAS);

/** The reference at `/v1/public/errors`: the general codes, then each area's, in AREAS order. */
export const describeErrors = () => errorsOf(AREAS);
