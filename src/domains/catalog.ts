import { is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import type { Config } from '../config/config.ts';
import { describeErrorCatalog } from '../kernel/errors.ts';
import type { Schema } from '../storage/database.ts';
import * as serverTables from '../storage/tables.ts';
import { arenaArea } from './arena/index.ts';
import { campaignsArea } from './campaigns/index.ts';
import { capabilitiesArea } from './capabilities/index.ts';
import { fundsArea } from './funds/index.ts';
import { identityArea } from './identity/index.ts';
import { matchingArea } from './matching/index.ts';
import { type Area, isForm, joinForms, type Operation, type ServicesOf } from './operations/index.ts';
import * as operationTables from './operations/tables.ts';
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
  matchingArea,
  skillsArea,
  arenaArea,
] as const;

/** The services operations reach through their context, and transports through the app. */
export type AppServices = ServicesOf<typeof AREAS>;

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

/**
 * The areas' operations in TOOL_ORDER; a tool missing from it, or offered twice, stops the start.
 * An operation marked as a form of another area's tool (`formKey`) is joined with it (forms.ts).
 */
export function orderOperations(areas: typeof AREAS): Array<Operation<AppServices>> {
  const all = areas.flatMap((area) => area.operations as ReadonlyArray<Operation<AppServices>>);
  const forms = all.filter(isForm);
  const ops = all
    .filter((op) => !isForm(op))
    .map((op) => {
      const form = forms.find((f) => f.name === op.name);
      return form ? (joinForms(op, form) as Operation<AppServices>) : op;
    });
  const rank = new Map<string, number>(TOOL_ORDER.map((name, i) => [name, i]));
  const seen = new Set<string>();
  for (const form of forms) {
    if (!ops.some((op) => op.name === form.name))
      throw new Error(`Tool form ${form.name} has no tool to join.`);
  }
  for (const op of ops) {
    if (!rank.has(op.name)) throw new Error(`Tool ${op.name} is not in the catalogue's TOOL_ORDER.`);
    if (seen.has(op.name)) throw new Error(`Tool ${op.name} is offered by two operations.`);
    seen.add(op.name);
  }
  return ops.sort((a, b) => (rank.get(a.name) ?? 0) - (rank.get(b.name) ?? 0));
}

export const OPERATIONS = orderOperations(AREAS);

/** The areas this deployment has on: one switched off plugs nothing into the others (extensions). */
export function areasOn(config: Config): ReadonlyArray<Area> {
  return (AREAS as ReadonlyArray<Area>).filter((area) => !area.switchedOff?.(config));
}

/**
 * The operations as this deployment offers them: those of an area it switched off (CAIRN_SKILLS)
 * stay listed, so capabilities_describe can say why, but no caller sees or calls them.
 */
export function operationsFor(config: Config): Array<Operation<AppServices>> {
  const off = new Map<string, string>();
  for (const area of AREAS as ReadonlyArray<Area>) {
    const why = area.switchedOff?.(config);
    if (why) for (const op of area.operations) off.set(op.name, why);
  }
  return OPERATIONS.map((op) => {
    const why = off.get(op.name);
    return why ? { ...op, visibility: () => ({ visible: false, why }) } : op;
  });
}

/** Every table: the drizzle schema the database handle is opened with. */
export const TABLES = Object.fromEntries(
  [serverTables, operationTables, ...AREAS.map((a) => a.tables)]
    .flatMap((tables) => Object.entries(tables))
    .filter(([, value]) => is(value, PgTable)),
) as Schema;

/** The reference at `/v1/public/errors`: the general codes, then each area's, in AREAS order. */
export const describeErrors = () => describeErrorCatalog(AREAS.map((a) => a.name));
