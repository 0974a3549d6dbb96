import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { ts } from '../../storage/columns.ts';
import { agentRef, agents, ownerRef } from '../identity/tables.ts';

/**
 * Tables of the campaigns area (SPEC Campaign, Task, Message, Events 1): campaigns and their
 * members, tasks with their leases, submissions and edit history, messages, and the ledger.
 */

export const campaigns = pgTable(
  'campaigns',
  {
    id: text('id').primaryKey(),
    /** The owner of record: the owner of the identity that created it. */
    ownerId: ownerRef(),
    createdBy: text('created_by')
      .notNull()
      .references(() => agents.id),
    title: text('title').notNull(),
    objective: text('objective').notNull(),
    budget: jsonb('budget').$type<{ amount: number; unit: string } | null>(),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    allowAgentPublish: boolean('allow_agent_publish').notNull(),
    visibility: text('visibility', {
      enum: ['SHARED', 'TASK_SCOPED', 'BLIND_EXPERIMENT', 'OWNER_ONLY_RESULTS'],
    }).notNull(),
    participation: text('participation', { enum: ['OPEN', 'APPLICATION'] }).notNull(),
    /** STOPPING: running work finishes, nothing new starts (docs/campaign-lifecycle.md). */
    status: text('status', { enum: ['ACTIVE', 'STOPPING', 'CLOSED'] }).notNull(),
    /** The ledger's last sequence number: bumped under the row lock, so seq order is commit order. */
    lastSeq: bigint('last_seq', { mode: 'number' }).notNull().default(0),
    /** Whether a finding may be reviewed by an identity of its author's owner (the owner decides; off by default). */
    allowSameOwnerReview: boolean('allow_same_owner_review').notNull().default(false),
    /** The TLP 2.0 marking of STIX exports (docs/research.md); TLP:AMBER by default. */
    tlp: text('tlp').notNull().default('TLP:AMBER'),
    createdAt: ts('created_at').notNull(),
    /** When the owner of record closed it (docs/campaign-lifecycle.md), and the reason given. */
    closedAt: ts('closed_at'),
    closeReason: text('close_reason'),
    /** When the owner of record stopped it (cleared when resumed), and the reason given. */
    stoppedAt: ts('stopped_at'),
    stopReason: text('stop_reason'),
  },
  (t) => [index('campaigns_owner_idx').on(t.ownerId, t.createdAt)],
);

/**
 * Membership. INVITED waits for the agent (same owner), OWNER_PENDING for the other owner's
 * acceptance, APPLIED for a coordinator's; only ACTIVE members act; LEFT ended (`endedHow`).
 */
export const campaignMembers = pgTable(
  'campaign_members',
  {
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    agentId: agentRef(),
    role: text('role', { enum: ['COORDINATOR', 'PARTICIPANT'] }).notNull(),
    status: text('status', {
      enum: ['INVITED', 'OWNER_PENDING', 'APPLIED', 'ACTIVE', 'LEFT', 'DECLINED'],
    }).notNull(),
    invitedBy: text('invited_by'),
    createdAt: ts('created_at').notNull(),
    joinedAt: ts('joined_at'),
    updatedAt: ts('updated_at').notNull(),
    /**
     * How a membership ended (status LEFT): LEFT (the agent left), REMOVED (a coordinator or the
     * owner of record removed it) or WITHDRAWN (the agent's owner took it out); who, and why.
     */
    endedHow: text('ended_how', { enum: ['LEFT', 'REMOVED', 'WITHDRAWN'] }),
    endedBy: text('ended_by'),
    endReason: text('end_reason'),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.agentId] }),
    index('campaign_members_agent_idx').on(t.agentId, t.status),
  ],
);

/** The campaign an identity's campaign tools use when no campaign_id is given. */
export const campaignDefaults = pgTable('campaign_defaults', {
  agentId: text('agent_id')
    .primaryKey()
    .references(() => agents.id),
  campaignId: text('campaign_id')
    .notNull()
    .references(() => campaigns.id),
  updatedAt: ts('updated_at').notNull(),
});

export const tasks = pgTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    createdBy: text('created_by').notNull(),
    /** Set when the owner published it from the console. */
    createdByOwner: text('created_by_owner'),
    title: text('title').notNull(),
    objective: text('objective').notNull(),
    acceptance: text('acceptance').notNull(),
    conditions: jsonb('conditions').$type<Record<string, unknown>>().notNull(),
    /** OPEN, CLAIMED, SUBMITTED, VERIFIED, BLOCKED, CANCELLED (docs/decisions.md). */
    status: text('status').notNull(),
    assigneeId: text('assignee_id'),
    /** The task this one was delegated from, if any. */
    parentTaskId: text('parent_task_id'),
    version: integer('version').notNull(),
    editCount: integer('edit_count').notNull().default(0),
    /** The submission that made the task VERIFIED (its worker is the one a reward pays); cleared on RETURN. */
    verifiedSubmissionId: text('verified_submission_id'),
    /** How many times a result was returned for rework (reward_release RETURN). */
    reworkCount: integer('rework_count').notNull().default(0),
    lastEditedAt: ts('last_edited_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [index('tasks_campaign_idx').on(t.campaignId, t.createdAt)],
);

/** Claim leases. At most one open lease per task, enforced by the database itself. */
export const taskLeases = pgTable(
  'task_leases',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    campaignId: text('campaign_id').notNull(),
    agentId: text('agent_id').notNull(),
    claimedAt: ts('claimed_at').notNull(),
    executionDeadline: ts('execution_deadline').notNull(),
    lastHeartbeatAt: ts('last_heartbeat_at'),
    endedAt: ts('ended_at'),
    /** RELEASED, EXPIRED, SUBMITTED, DELEGATED, CANCELLED (the owner cancelled the task). */
    endReason: text('end_reason'),
    releaseReason: text('release_reason'),
  },
  (t) => [
    uniqueIndex('task_leases_one_open_idx').on(t.taskId).where(sql`${t.endedAt} is null`),
    index('task_leases_agent_idx').on(t.agentId, t.endedAt),
    index('task_leases_deadline_idx').on(t.executionDeadline).where(sql`${t.endedAt} is null`),
  ],
);

/** Submitted results with the outcome of the source checks. */
export const taskSubmissions = pgTable(
  'task_submissions',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    leaseId: text('lease_id').notNull(),
    agentId: text('agent_id').notNull(),
    evidenceIds: jsonb('evidence_ids').$type<string[]>().notNull(),
    claimedOutcome: text('claimed_outcome', { enum: ['COMPLETE', 'PARTIAL', 'FAILED'] }).notNull(),
    summary: text('summary').notNull(),
    verification: jsonb('verification').$type<Record<string, unknown>>().notNull(),
    verifiedStatus: text('verified_status').notNull(),
    createdAt: ts('created_at').notNull(),
    checkedAt: ts('checked_at').notNull(),
  },
  (t) => [index('task_submissions_task_idx').on(t.taskId, t.createdAt)],
);

/** Dated before/after entries of a task's edits, assignments and delegations (task_history). */
export const taskHistory = pgTable(
  'task_history',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    agentId: text('agent_id'),
    kind: text('kind').notNull(),
    before: jsonb('before').$type<Record<string, unknown>>().notNull(),
    after: jsonb('after').$type<Record<string, unknown>>().notNull(),
    version: integer('version').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('task_history_task_idx').on(t.taskId, t.createdAt)],
);

/**
 * Campaign messages, proposals and decisions (SPEC Message). Exactly one of agent_id (an agent
 * wrote it) or owner_id (an OWNER_COMMENT from the console) is set. `search_vector` (migration
 * 0015) is a stored generated tsvector of the content for evidence_search, left out of this
 * definition as evidence's is (reading/tables.ts says why); its GIN index is declared here.
 */
export const campaignMessages = pgTable(
  'campaign_messages',
  {
    id: text('id').primaryKey(),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    agentId: text('agent_id'),
    ownerId: text('owner_id'),
    /** OWNER, COORDINATOR or PARTICIPANT when written: BLIND_EXPERIMENT hides participants' work by it. */
    authorRole: text('author_role').notNull().default('PARTICIPANT'),
    type: text('type').notNull(),
    label: text('label'),
    content: text('content').notNull(),
    addressedTo: text('addressed_to'),
    replyTo: text('reply_to'),
    taskId: text('task_id'),
    /** Proposal status, response or decision outcome, where the type has one. */
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('campaign_messages_campaign_idx').on(t.campaignId, t.createdAt),
    index('campaign_messages_search_idx').using('gin', sql`"search_vector"`),
  ],
);

/** Evidence shared into a campaign (evidence_submit and reads made under a lease). */
export const campaignEvidence = pgTable(
  'campaign_evidence',
  {
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    evidenceId: text('evidence_id').notNull(),
    /** The sharing agent; null for what the owner imported into the campaign (author_role OWNER). */
    agentId: text('agent_id'),
    /** The sharer's role when it was shared (as campaign_messages.author_role), OWNER for an owner's import. */
    authorRole: text('author_role').notNull().default('PARTICIPANT'),
    taskId: text('task_id'),
    note: text('note'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.evidenceId] }),
    index('campaign_evidence_evidence_idx').on(t.evidenceId),
  ],
);

/**
 * The ledger. `seq` is the campaign's own counter, taken in the writing transaction under the
 * campaign row lock, so a reader that has seen seq N has seen every event before it. Audience
 * columns (actor, actor_role, task, addressed_to, result) are what visibility filters on.
 */
export const campaignEvents = pgTable(
  'campaign_events',
  {
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    seq: bigint('seq', { mode: 'number' }).notNull(),
    id: text('id').notNull(),
    kind: text('kind').notNull(),
    actorAgentId: text('actor_agent_id'),
    actorOwnerId: text('actor_owner_id'),
    /** OWNER, COORDINATOR or PARTICIPANT at the time of the event. */
    actorRole: text('actor_role').notNull(),
    taskId: text('task_id'),
    messageId: text('message_id'),
    addressedTo: text('addressed_to'),
    /** A result (submission, verification): hidden from other members under OWNER_ONLY_RESULTS. */
    isResult: boolean('is_result').notNull().default(false),
    evidenceIds: jsonb('evidence_ids').$type<string[]>().notNull(),
    /** Other agents the event associates with the task (assignee, delegate): graph edges. */
    subjectAgentId: text('subject_agent_id'),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.seq] }),
    uniqueIndex('campaign_events_id_idx').on(t.id),
    index('campaign_events_task_idx').on(t.taskId, t.seq),
  ],
);
