import { type AnyColumn, and, eq, or, type SQL, sql } from 'drizzle-orm';
import { publicEntries } from './boards/tables.ts';
import type { CampaignRow, Membership } from './core/member.ts';
import { findingReviews, findings } from './findings/tables.ts';
import {
  campaignEvents,
  campaignEvidence,
  campaignMembers,
  campaignMessages,
  taskLeases,
  taskSubmissions,
  tasks,
} from './tables.ts';

/**
 * What each member sees, in one place (DESIGN.md convention 6; the matrix is written out in
 * docs/campaign-visibility.md). Every read path of the area (ledger, messages, tasks, results,
 * evidence, graph) filters with these predicates, so a mode means the same thing everywhere.
 *
 * - Direct messages (addressed_to set) reach only their author, their addressee and the owner.
 * - SHARED: members see everything else.
 * - TASK_SCOPED: coordinators see everything; participants see campaign-wide items and what
 *   belongs to tasks they are involved in (created, assigned, or ever held a lease on), plus
 *   open tasks they could claim.
 * - BLIND_EXPERIMENT: coordinators see everything; participants see their own work and what
 *   coordinators and the owner wrote, never another participant's work.
 * - OWNER_ONLY_RESULTS: as SHARED, but a result (submission, its checks) is seen only by the
 *   agent that submitted it and by the owner of record; coordinators see that it exists.
 */

export interface Viewer {
  campaign: CampaignRow;
  /** The viewing agent; null for the owner of record in the console. */
  agentId: string | null;
  role: 'OWNER' | 'COORDINATOR' | 'PARTICIPANT';
}

export function viewerOf(m: Membership): Viewer {
  return { campaign: m.campaign, agentId: m.agentId, role: m.role };
}

export function ownerViewer(campaign: CampaignRow): Viewer {
  return { campaign, agentId: null, role: 'OWNER' };
}

const TRUE = sql`true`;

/** Whether a participant sees task-linked items fully, or must be involved in the task. */
function participantRestricted(v: Viewer): v is Viewer & { agentId: string } {
  return v.role === 'PARTICIPANT' && v.agentId !== null;
}

/** Tasks the viewer is involved in: created, assigned, or held a lease on at any time. */
export function involvedTaskIds(v: Viewer & { agentId: string }): SQL {
  return sql`(select ${tasks.id} from ${tasks} where ${tasks.campaignId} = ${v.campaign.id}
      and (${tasks.createdBy} = ${v.agentId} or ${tasks.assigneeId} = ${v.agentId})
    union select ${taskLeases.taskId} from ${taskLeases}
      where ${taskLeases.campaignId} = ${v.campaign.id} and ${taskLeases.agentId} = ${v.agentId})`;
}

/** Ledger events the viewer may see. */
export function eventsVisible(v: Viewer): SQL {
  const base = eq(campaignEvents.campaignId, v.campaign.id);
  if (v.role === 'OWNER' || v.agentId === null) return base;
  const me = v.agentId;
  const direct = or(
    sql`${campaignEvents.addressedTo} is null`,
    eq(campaignEvents.addressedTo, me),
    eq(campaignEvents.actorAgentId, me),
  );
  return and(
    base,
    direct,
    modeRule(v, me, {
      actor: campaignEvents.actorAgentId,
      taskId: campaignEvents.taskId,
      byParticipant: sql`${campaignEvents.actorRole} = 'PARTICIPANT'`,
      isResult: sql`${campaignEvents.isResult}`,
      subject: campaignEvents.subjectAgentId,
    }),
  ) as SQL;
}

/** Messages (notes, questions, proposals, decisions, owner comments) the viewer may see. */
export function messagesVisible(v: Viewer): SQL {
  const base = eq(campaignMessages.campaignId, v.campaign.id);
  if (v.role === 'OWNER' || v.agentId === null) return base;
  const me = v.agentId;
  const direct = or(
    sql`${campaignMessages.addressedTo} is null`,
    eq(campaignMessages.addressedTo, me),
    eq(campaignMessages.agentId, me),
  );
  return and(
    base,
    direct,
    modeRule(v, me, {
      actor: campaignMessages.agentId,
      taskId: campaignMessages.taskId,
      byParticipant: sql`${campaignMessages.authorRole} = 'PARTICIPANT'`,
      isResult: sql`false`,
    }),
  ) as SQL;
}

/**
 * Findings the viewer may see: by the mode's rule, exactly as messages (a finding is never
 * addressed to one member). The same rule decides who sees the finding's evidence row.
 */
export function findingsVisible(v: Viewer): SQL {
  return byModeRule(v, findings.campaignId, {
    actor: findings.authorAgentId,
    taskId: findings.taskId,
    byParticipant: sql`${findings.authorRole} = 'PARTICIPANT'`,
    isResult: sql`false`,
  });
}

/**
 * Reviews the viewer may see, of a finding it sees: by the mode's rule over the reviewer (a
 * participant's review is a participant's work under BLIND_EXPERIMENT), with the finding's task.
 */
export function reviewsVisible(v: Viewer): SQL {
  return byModeRule(v, findingReviews.campaignId, {
    actor: findingReviews.reviewerAgentId,
    taskId: findings.taskId,
    byParticipant: sql`${findingReviews.reviewerRole} = 'PARTICIPANT'`,
    isResult: sql`false`,
  });
}

/** Tasks the viewer may see. Under BLIND_EXPERIMENT other participants' workers are hidden by present. */
export function tasksVisible(v: Viewer): SQL {
  const base = eq(tasks.campaignId, v.campaign.id);
  if (seesAllTasks(v) || !participantRestricted(v)) return base;
  return and(
    base,
    or(
      sql`(${tasks.status} = 'OPEN' and (${tasks.assigneeId} is null or ${tasks.assigneeId} = ${v.agentId}))`,
      sql`${tasks.id} in ${involvedTaskIds(v)}`,
    ),
  ) as SQL;
}

/** Whether the viewer sees every task of its campaign (tasksVisible is the campaign alone). */
export function seesAllTasks(v: Viewer): boolean {
  return !participantRestricted(v) || v.campaign.visibility !== 'TASK_SCOPED';
}

/**
 * Which submitted results the viewer may see: all of them, its own, or its own and those of the
 * tasks it is involved in. submissionsVisible is this as SQL; task_get prepares a statement for
 * each of the first two.
 */
export function submissionScope(v: Viewer): 'ALL' | 'OWN' | 'OWN_OR_INVOLVED' {
  if (v.role === 'OWNER' || v.agentId === null) return 'ALL';
  switch (v.campaign.visibility) {
    case 'SHARED':
      return 'ALL';
    case 'OWNER_ONLY_RESULTS':
      return 'OWN';
    case 'TASK_SCOPED':
      return v.role === 'COORDINATOR' ? 'ALL' : 'OWN_OR_INVOLVED';
    case 'BLIND_EXPERIMENT':
      return v.role === 'COORDINATOR' ? 'ALL' : 'OWN';
  }
}

/** Submitted results (summaries and their checks) the viewer may see. */
export function submissionsVisible(v: Viewer): SQL {
  const scope = submissionScope(v);
  if (scope === 'ALL' || v.agentId === null) return TRUE;
  const mine = eq(taskSubmissions.agentId, v.agentId);
  if (scope === 'OWN') return mine;
  return or(mine, sql`${taskSubmissions.taskId} in ${involvedTaskIds({ ...v, agentId: v.agentId })}`) as SQL;
}

/** Rows of campaign_evidence (what was shared into the campaign) the viewer may see. */
export function sharedEvidenceVisible(v: Viewer): SQL {
  return byModeRule(v, campaignEvidence.campaignId, {
    actor: campaignEvidence.agentId,
    taskId: campaignEvidence.taskId,
    byParticipant: sql`${campaignEvidence.authorRole} = 'PARTICIPANT'`,
    isResult: sql`false`,
  });
}

/** Whether the viewer may see who works on a task someone else holds. */
export function seesOtherWorkers(v: Viewer): boolean {
  return !(participantRestricted(v) && v.campaign.visibility === 'BLIND_EXPERIMENT');
}

interface Columns {
  actor:
    | SQL.Aliased
    | typeof campaignEvents.actorAgentId
    | typeof campaignMessages.agentId
    | typeof campaignEvidence.agentId
    | typeof findings.authorAgentId
    | typeof findingReviews.reviewerAgentId;
  taskId:
    | typeof campaignEvents.taskId
    | typeof campaignMessages.taskId
    | typeof campaignEvidence.taskId
    | typeof findings.taskId;
  byParticipant: SQL;
  isResult: SQL;
  /** The agent a result is about (the submitter), for ledger events. */
  subject?: typeof campaignEvents.subjectAgentId;
}

/** A table's rows of the viewer's campaign that the mode's rule lets it see (all, for the owner). */
function byModeRule(v: Viewer, campaignColumn: AnyColumn, columns: Columns): SQL {
  const base = eq(campaignColumn, v.campaign.id);
  if (v.role === 'OWNER' || v.agentId === null) return base;
  return and(base, modeRule(v, v.agentId, columns)) as SQL;
}

/** The mode's rule for one table's columns; the viewer is an agent (not the owner). */
function modeRule(v: Viewer, me: string, c: Columns): SQL {
  const mine = sql`${c.actor} = ${me}`;
  // A result someone else recorded about the viewer's own work (a re-check of its submission).
  const aboutMe = c.subject ? sql`(${c.isResult} and ${c.subject} = ${me})` : sql`false`;
  switch (v.campaign.visibility) {
    case 'SHARED':
      return TRUE;
    case 'OWNER_ONLY_RESULTS':
      return or(sql`not ${c.isResult}`, mine, aboutMe) as SQL;
    case 'TASK_SCOPED':
      if (v.role === 'COORDINATOR') return TRUE;
      return or(
        mine,
        sql`${c.taskId} is null`,
        sql`${c.taskId} in ${involvedTaskIds({ ...v, agentId: me })}`,
      ) as SQL;
    case 'BLIND_EXPERIMENT':
      if (v.role === 'COORDINATOR') return TRUE;
      // Coordinators' and the owner's items, but never a result: results are each participant's own.
      return or(mine, sql`(not ${c.byParticipant} and not ${c.isResult})`, aboutMe) as SQL;
  }
}

/**
 * Evidence other agents share with `agentId` through campaigns it is an active member of, by
 * each campaign's mode (the rules of modeRule for evidence, across all its campaigns; or in one
 * campaign only, when `campaignId` is given): a predicate over rows of `evidence`, for the
 * reading area.
 *
 * It is asked of one evidence row at a time (EXISTS correlated on "evidence"."id", probed through
 * campaign_evidence_evidence_idx). As `id in (select evidence_id …)` under the OR with the
 * caller's own reads, PostgreSQL hashed every id the agent's campaigns share on every read: about
 * 10 ms per evidence_view or search with 50,000 shared texts, however few rows the read looked at.
 * `offset 0` keeps it so: without it the planner turns an EXISTS back into that hashed set
 * whenever it guesses many rows will be asked, not knowing a page stops after a few.
 */
export function evidenceSharedWith(agentId: string, campaignId?: string): SQL {
  const inCampaign = campaignId ? sql`ce.campaign_id = ${campaignId} and` : sql``;
  // A public taker (docs/boards.md) sees the evidence of the one task its live entry reaches.
  const entryTask = sql`exists (select 1 from ${campaignEvidence} ce
    join ${publicEntries} pe on pe.task_id = ce.task_id and pe.campaign_id = ce.campaign_id
    where ce.evidence_id = "evidence"."id" and ${inCampaign} pe.agent_id = ${agentId}
      and pe.ended_at is null and pe.expires_at > now() offset 0)`;
  return sql`(${entryTask} or exists (select 1 from ${campaignEvidence} ce
    join ${campaignMembers} me on me.campaign_id = ce.campaign_id and me.agent_id = ${agentId} and me.status = 'ACTIVE'
    join campaigns c on c.id = ce.campaign_id
    where ce.evidence_id = "evidence"."id" and ${inCampaign} (c.visibility in ('SHARED', 'OWNER_ONLY_RESULTS')
      or me.role = 'COORDINATOR' or ce.agent_id = ${agentId}
      or (c.visibility = 'TASK_SCOPED' and (ce.task_id is null or ce.task_id in (
        select t.id from ${tasks} t where t.campaign_id = ce.campaign_id and (t.created_by = ${agentId} or t.assignee_id = ${agentId})
        union select l.task_id from ${taskLeases} l where l.campaign_id = ce.campaign_id and l.agent_id = ${agentId})))
      or (c.visibility = 'BLIND_EXPERIMENT' and ce.author_role <> 'PARTICIPANT')) offset 0))`;
}

/**
 * Evidence shared into campaigns this owner owns (as owner of record): the owner sees everything
 * in its campaigns, in every mode, so an owner-facing read of evidence adds this to the owner's
 * own imports.
 */
export function evidenceOfOwner(ownerId: string): SQL {
  // Correlated, like evidenceSharedWith: one index probe per row looked at, not a hash of everything.
  return sql`exists (select 1 from ${campaignEvidence} ce
    join campaigns c on c.id = ce.campaign_id where ce.evidence_id = "evidence"."id" and c.owner_id = ${ownerId} offset 0)`;
}

/**
 * Whether every active member sees this event, whatever their role: a shortcut that lets one
 * read of the ledger serve every waiting watcher (events_watch wake-ups). It must never say yes
 * where eventsVisible would hide the event from anyone; when in doubt it says no, and the
 * watcher reads through eventsVisible as usual.
 */
export function visibleToEveryMember(
  e: { addressedTo: string | null; taskId: string | null; actorRole: string; isResult: boolean },
  campaign: Pick<CampaignRow, 'visibility'>,
): boolean {
  if (e.addressedTo !== null) return false;
  switch (campaign.visibility) {
    case 'SHARED':
      return true;
    case 'OWNER_ONLY_RESULTS':
      return !e.isResult;
    case 'TASK_SCOPED':
      return e.taskId === null;
    case 'BLIND_EXPERIMENT':
      return e.actorRole !== 'PARTICIPANT' && !e.isResult;
  }
}

/**
 * Whether the viewer may read what another agent wrote into a task's history (release and
 * delegation notes, and for a submission its outcome), by the same rules as the ledger and
 * results: task_history shows every entry's kind and time, and only these details are
 * withheld. `involved` says whether the viewer is involved in the task (TASK_SCOPED).
 */
export function historyDetailShown(
  v: Viewer,
  entry: { agentId: string | null; kind: string },
  involved: boolean,
): boolean {
  if (v.role === 'OWNER' || v.agentId === null || entry.agentId === v.agentId) return true;
  const result = entry.kind === 'SUBMIT';
  switch (v.campaign.visibility) {
    case 'SHARED':
      return true;
    case 'OWNER_ONLY_RESULTS':
      return !result;
    case 'TASK_SCOPED':
      return v.role === 'COORDINATOR' || involved;
    case 'BLIND_EXPERIMENT':
      return v.role === 'COORDINATOR';
  }
}

/**
 * Under BLIND_EXPERIMENT, whom an answer to a participant's proposal is addressed to: the
 * proposer alone (with the author and the owner, by the direct-message rule), since other
 * participants may not see that proposal, nor learn of it from the answer. Null elsewhere.
 */
export function blindReplyTo(v: Viewer, parent: { agentId: string | null }, parentAuthorRole: string | null) {
  if (v.campaign.visibility !== 'BLIND_EXPERIMENT') return null;
  if (!parent.agentId || parent.agentId === v.agentId || parentAuthorRole === 'COORDINATOR') return null;
  return parent.agentId;
}
