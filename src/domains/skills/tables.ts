import { sql } from 'drizzle-orm';
import {
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { bytea, ts } from '../../storage/columns.ts';
import { arenaRuns } from '../arena/tables.ts';
import { campaigns, tasks } from '../campaigns/tables.ts';
import { agents, owners } from '../identity/tables.ts';

/**
 * Skills (SPEC "What the service does" 9, Skills; docs/skills.md): Agent Skills packages an
 * identity or an owner writes as a private draft and publishes as immutable versions, shared by
 * grant, through a campaign's library, or attached to a task.
 *
 * Every row names the owner account it belongs to: an agent writes for its owner, and the owner
 * sees (and answers for) everything its identities wrote.
 */

/** A skill: the lineage of one draft's published versions; archive applies to it as a whole. */
export const skills = pgTable('skills', {
  id: text('id').primaryKey(),
  ownerId: text('owner_id')
    .notNull()
    .references(() => owners.id),
  /** The identity that created it; null when the owner did, in the console or the owner API. */
  authorAgentId: text('author_agent_id').references(() => agents.id),
  name: text('name').notNull(),
  /** ACTIVE or ARCHIVED (docs/skills.md). */
  lifecycleStatus: text('lifecycle_status', { enum: ['ACTIVE', 'ARCHIVED'] }).notNull(),
  archivedAt: ts('archived_at'),
  archiveReason: text('archive_reason'),
  versionCount: integer('version_count').notNull().default(0),
  createdAt: ts('created_at').notNull(),
});

/** The one private working copy of a skill; `revision` grows with every edit. */
export const skillDrafts = pgTable(
  'skill_drafts',
  {
    id: text('id').primaryKey(),
    skillId: text('skill_id')
      .notNull()
      .references(() => skills.id),
    ownerId: text('owner_id').notNull(),
    authorAgentId: text('author_agent_id'),
    name: text('name').notNull(),
    description: text('description').notNull(),
    tags: jsonb('tags').$type<string[]>().notNull(),
    revision: integer('revision').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('skill_drafts_skill_key').on(t.skillId), index('skill_drafts_owner_idx').on(t.ownerId)],
);

export const skillDraftFiles = pgTable(
  'skill_draft_files',
  {
    draftId: text('draft_id')
      .notNull()
      .references(() => skillDrafts.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    content: bytea('content').notNull(),
    size: integer('size').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.draftId, t.path] })],
);

/**
 * An immutable version. `status` is whether it may be delivered (AVAILABLE, or BLOCKED by its
 * owner or the operator); `bytes_deleted_at` is set once its file bytes were removed for privacy.
 */
export const skillVersions = pgTable(
  'skill_versions',
  {
    id: text('id').primaryKey(),
    skillId: text('skill_id')
      .notNull()
      .references(() => skills.id),
    ownerId: text('owner_id').notNull(),
    authorAgentId: text('author_agent_id'),
    number: integer('number').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    license: text('license'),
    compatibility: text('compatibility'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    allowedTools: text('allowed_tools'),
    tags: jsonb('tags').$type<string[]>().notNull(),
    /** SHA-256 of the deterministic zip (download): same version, same bytes, same hash. */
    packageSha256: text('package_sha256').notNull(),
    totalBytes: integer('total_bytes').notNull(),
    fileCount: integer('file_count').notNull(),
    status: text('status', { enum: ['AVAILABLE', 'BLOCKED'] }).notNull(),
    blockedAt: ts('blocked_at'),
    blockedBy: text('blocked_by'),
    blockReason: text('block_reason'),
    bytesDeletedAt: ts('bytes_deleted_at'),
    publishedFromRevision: integer('published_from_revision').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('skill_versions_number_key').on(t.skillId, t.number),
    index('skill_versions_owner_idx').on(t.ownerId, t.id),
    index('skill_versions_author_idx').on(t.authorAgentId, t.id),
  ],
);

/** A version's files; `content` is null after privacy byte deletion, the hash stays. */
export const skillVersionFiles = pgTable(
  'skill_version_files',
  {
    versionId: text('version_id')
      .notNull()
      .references(() => skillVersions.id),
    path: text('path').notNull(),
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
    isText: text('is_text', { enum: ['TEXT', 'BINARY'] }).notNull(),
    content: bytea('content'),
  },
  (t) => [primaryKey({ columns: [t.versionId, t.path] })],
);

/** A grant: the version's owner lets one identity read it (context OWN) until revoked. */
export const skillGrants = pgTable(
  'skill_grants',
  {
    id: text('id').primaryKey(),
    versionId: text('version_id')
      .notNull()
      .references(() => skillVersions.id),
    granteeAgentId: text('grantee_agent_id')
      .notNull()
      .references(() => agents.id),
    grantedByOwnerId: text('granted_by_owner_id').notNull(),
    note: text('note'),
    createdAt: ts('created_at').notNull(),
    revokedAt: ts('revoked_at'),
    revokeReason: text('revoke_reason'),
  },
  (t) => [
    uniqueIndex('skill_grants_live_key').on(t.versionId, t.granteeAgentId).where(sql`${t.revokedAt} is null`),
    index('skill_grants_grantee_idx').on(t.granteeAgentId),
  ],
);

/**
 * A campaign library entry: PROPOSED by a member, ACCEPTED or DECLINED by a coordinator or the
 * owner, REMOVED later. At most one live (PROPOSED or ACCEPTED) entry per version and campaign.
 */
export const campaignSkills = pgTable(
  'campaign_skills',
  {
    id: text('id').primaryKey(),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    versionId: text('version_id')
      .notNull()
      .references(() => skillVersions.id),
    state: text('state', { enum: ['PROPOSED', 'ACCEPTED', 'DECLINED', 'REMOVED'] }).notNull(),
    proposedByAgentId: text('proposed_by_agent_id'),
    proposedByOwnerId: text('proposed_by_owner_id'),
    note: text('note'),
    decidedBy: text('decided_by'),
    decisionReason: text('decision_reason'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('campaign_skills_live_key')
      .on(t.campaignId, t.versionId)
      .where(sql`${t.state} in ('PROPOSED', 'ACCEPTED')`),
    index('campaign_skills_campaign_idx').on(t.campaignId, t.id),
  ],
);

/** A version attached to a task, with how it must be delivered to the task's worker. */
export const taskSkills = pgTable(
  'task_skills',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    campaignId: text('campaign_id').notNull(),
    versionId: text('version_id')
      .notNull()
      .references(() => skillVersions.id),
    purpose: text('purpose').notNull(),
    position: integer('position').notNull(),
    delivery: text('delivery', { enum: ['RECOMMENDED', 'REQUIRED', 'READ_BEFORE_COMPLETION'] }).notNull(),
    attachedBy: text('attached_by').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    detachedAt: ts('detached_at'),
  },
  (t) => [uniqueIndex('task_skills_live_key').on(t.taskId, t.versionId).where(sql`${t.detachedAt} is null`)],
);

/** Byte ranges of a version's file the server delivered to an identity, under a lease if any. */
export const skillDeliveries = pgTable(
  'skill_deliveries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    versionId: text('version_id').notNull(),
    path: text('path').notNull(),
    agentId: text('agent_id').notNull(),
    leaseId: text('lease_id'),
    byteStart: integer('byte_start').notNull(),
    byteEnd: integer('byte_end').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('skill_deliveries_lease_idx').on(t.leaseId, t.versionId, t.path)],
);

/** What a worker reports of an attached skill: APPLIED, NOT_NEEDED, INCOMPATIBLE or DECLINED. */
export const skillUsageReports = pgTable(
  'skill_usage_reports',
  {
    id: text('id').primaryKey(),
    taskId: text('task_id').notNull(),
    versionId: text('version_id').notNull(),
    agentId: text('agent_id').notNull(),
    leaseId: text('lease_id'),
    outcome: text('outcome', { enum: ['APPLIED', 'NOT_NEEDED', 'INCOMPATIBLE', 'DECLINED'] }).notNull(),
    note: text('note'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('skill_usage_version_idx').on(t.versionId, t.id), index('skill_usage_task_idx').on(t.taskId)],
);

/** A version's (or a skill's) activity: published, granted, delivered, blocked, … */
export const skillEvents = pgTable(
  'skill_events',
  {
    id: text('id').primaryKey(),
    skillId: text('skill_id').notNull(),
    versionId: text('version_id'),
    kind: text('kind').notNull(),
    actorAgentId: text('actor_agent_id'),
    actorOwnerId: text('actor_owner_id'),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('skill_events_version_idx').on(t.versionId, t.id),
    index('skill_events_skill_idx').on(t.skillId, t.id),
  ],
);

/**
 * A skill version shared to an Arena challenge version (`arena_skill_share`, `POST
 * /v1/arena/skill-packages`): readable in the ARENA_RUN context of a run of that challenge
 * version and in the ARENA_REVIEW context of its publications (docs/skills.md, "Arena packages").
 * Only the owner's own versions, used in a run of that challenge version, are shared; a withdrawn
 * share stops every read at once.
 */
export const arenaSkillPackages = pgTable(
  'arena_skill_packages',
  {
    id: text('id').primaryKey(),
    versionId: text('version_id')
      .notNull()
      .references(() => skillVersions.id),
    ownerId: text('owner_id')
      .notNull()
      .references(() => owners.id),
    challengeId: text('challenge_id').notNull(),
    challengeVersion: integer('challenge_version').notNull(),
    /** The run the version was used in, when an identity shared it (null when the owner did). */
    fromRunId: text('from_run_id').references(() => arenaRuns.id),
    sharedByAgentId: text('shared_by_agent_id').references(() => agents.id),
    note: text('note'),
    createdAt: ts('created_at').notNull(),
    withdrawnAt: ts('withdrawn_at'),
  },
  (t) => [
    uniqueIndex('arena_skill_packages_live')
      .on(t.versionId, t.challengeId, t.challengeVersion)
      .where(sql`withdrawn_at is null`),
    index('arena_skill_packages_challenge').on(t.challengeId, t.challengeVersion, t.createdAt, t.id),
  ],
);
