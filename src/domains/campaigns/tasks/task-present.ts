import { historyDetailShown, seesOtherWorkers, type Viewer } from '../audience.ts';
import type { HistoryRow, TaskRow } from '../core/task-repo.ts';
import type { LeaseRow } from './leases.ts';

/**
 * Task rows to wire shapes. Where the campaign's mode hides other workers from the viewer
 * (BLIND_EXPERIMENT participants), another agent's id as worker, reservation holder or
 * submitter becomes null: the viewer learns that someone works on it, never who.
 */

/** An agent id the viewer may see, or null. */
function workerShown(viewer: Viewer, agentId: string | null): string | null {
  if (agentId === null) return null;
  return agentId === viewer.agentId || seesOtherWorkers(viewer) ? agentId : null;
}

/**
 * created_by as agents see it: the agent id, or null when the owner of record published it, or
 * when the mode hides other agents' work from the viewer (a blind participant).
 */
function creatorShown(task: TaskRow, viewer: Viewer): string | null {
  return task.createdByOwner ? null : workerShown(viewer, task.createdBy);
}

/** A task in lists: what to pick from, without the long texts. */
export function presentTaskSummary(task: TaskRow, viewer: Viewer, lease: LeaseRow | null) {
  return {
    task_id: task.id,
    campaign_id: task.campaignId,
    title: task.title,
    status: task.status,
    assignee_id: workerShown(viewer, task.assigneeId),
    reserved: task.assigneeId !== null,
    created_by: creatorShown(task, viewer),
    time_budget_minutes: (task.conditions as { time_budget_minutes?: number }).time_budget_minutes ?? null,
    lease: presentLease(viewer, lease, null),
    version: task.version,
    created_at: task.createdAt.toISOString(),
  };
}

export interface SubmissionView {
  id: string;
  agentId: string;
  summary: string;
  claimedOutcome: string;
  verifiedStatus: string;
  createdAt: Date;
}

/** task_get: every field of the task, with the lease as the viewer may see it. */
export function presentTask(
  task: TaskRow,
  viewer: Viewer,
  lease: LeaseRow | null,
  submissions: SubmissionView[],
  canEdit: boolean,
  now: Date,
) {
  return {
    task_id: task.id,
    campaign_id: task.campaignId,
    title: task.title,
    objective: task.objective,
    acceptance: task.acceptance,
    conditions: task.conditions,
    status: task.status,
    assignee_id: workerShown(viewer, task.assigneeId),
    reserved: task.assigneeId !== null,
    reserved_for_you: task.assigneeId !== null && task.assigneeId === viewer.agentId,
    parent_task_id: task.parentTaskId,
    created_by: creatorShown(task, viewer),
    published_by_owner: task.createdByOwner !== null,
    version: task.version,
    editing: {
      can_edit: canEdit,
      edit_count: task.editCount,
      last_edited_at: task.lastEditedAt?.toISOString() ?? null,
    },
    lease: presentLease(viewer, lease, now),
    submissions: submissions.map((s) => ({
      submission_id: s.id,
      agent_id: workerShown(viewer, s.agentId),
      summary: s.summary,
      claimed_outcome: s.claimedOutcome,
      verified_status: s.verifiedStatus,
      created_at: s.createdAt.toISOString(),
    })),
    created_at: task.createdAt.toISOString(),
    updated_at: task.updatedAt.toISOString(),
  };
}

/**
 * The live lease: its id only for its holder (a lease id is what heartbeats, releases and
 * submissions present), for everyone else that it is held and until when.
 */
function presentLease(viewer: Viewer, lease: LeaseRow | null, now: Date | null) {
  if (!lease) return null;
  const deadline = lease.executionDeadline.toISOString();
  if (lease.agentId === viewer.agentId) {
    return {
      held: true,
      held_by_you: true,
      lease_id: lease.id,
      execution_deadline: deadline,
      ...(now
        ? {
            seconds_left: Math.max(0, Math.floor((lease.executionDeadline.getTime() - now.getTime()) / 1000)),
          }
        : {}),
      last_heartbeat_at: lease.lastHeartbeatAt?.toISOString() ?? null,
    };
  }
  return {
    held: true,
    held_by_you: false,
    execution_deadline: deadline,
    agent_id: workerShown(viewer, lease.agentId),
  };
}

/** One task_history entry: who (an agent, the owner, or Cairn itself), what, before and after. */
export function presentHistory(row: HistoryRow, viewer: Viewer, involved: boolean) {
  const by = row.agentId === null ? 'SYSTEM' : row.agentId.startsWith('owner:') ? 'OWNER' : 'AGENT';
  const hide = !seesOtherWorkers(viewer);
  const detail = historyDetailShown(viewer, row, involved);
  const shown = (fields: Record<string, unknown>) => {
    const masked = hide ? maskAssignee(fields, viewer) : fields;
    return detail ? masked : withoutDetails(masked);
  };
  return {
    at: row.createdAt.toISOString(),
    kind: row.kind,
    by,
    agent_id: by === 'AGENT' ? workerShown(viewer, row.agentId) : null,
    before: shown(row.before),
    after: shown(row.after),
    ...(detail ? {} : { details_withheld: true }),
    version: row.version,
  };
}

/** What another agent wrote (notes, reasons) and a submission's outcome: withheld where the mode says. */
const DETAIL_FIELDS = ['note', 'reason', 'release_reason', 'verified_status', 'submission_id'];

function withoutDetails(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([k]) => !DETAIL_FIELDS.includes(k)));
}

function maskAssignee(fields: Record<string, unknown>, viewer: Viewer): Record<string, unknown> {
  if (typeof fields.assignee_id !== 'string') return fields;
  return { ...fields, assignee_id: workerShown(viewer, fields.assignee_id) };
}
