import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { ts } from '../../storage/columns.ts';
import { agents, owners } from '../identity/tables.ts';

/**
 * The arena's tables (docs/arena.md): the keys that sign scores, operator-added challenge
 * versions, and runs with their members, workspace, artifacts and TEAM thread.
 */

/** A public Ed25519 key as a JWK: what `/.well-known/jwks.json` publishes of it. */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

/**
 * The deployment's score-signing keys (Ed25519), shared by every replica. `kid` is the RFC 7638
 * thumbprint of the public key. The private key is sealed with the server secret
 * (kernel/seal.ts), never stored in clear. At most one key is ACTIVE (the partial unique index
 * lets replicas race to make the first one, and one wins); RETIRED keys sign nothing more but
 * stay published, so the scores they signed still verify.
 */
export const arenaSigningKeys = pgTable(
  'arena_signing_keys',
  {
    kid: text('kid').primaryKey(),
    publicJwk: jsonb('public_jwk').$type<PublicJwk>().notNull(),
    sealedPrivateKey: text('sealed_private_key').notNull(),
    status: text('status', { enum: ['ACTIVE', 'RETIRED'] }).notNull(),
    createdAt: ts('created_at').notNull(),
    retiredAt: ts('retired_at'),
  },
  (t) => [
    uniqueIndex('arena_signing_keys_one_active').on(t.status).where(sql`status = 'ACTIVE'`),
    check(
      'arena_signing_keys_retired_at',
      sql`(${t.status} = 'ACTIVE' and ${t.retiredAt} is null) or (${t.status} = 'RETIRED' and ${t.retiredAt} is not null)`,
    ),
  ],
);

/** A challenge file as stored: a relative path under the package and its UTF-8 text. */
export interface StoredChallengeFile {
  path: string;
  content: string;
}

/**
 * Challenge versions an operator added (`cairn arena add-challenge DIR`), validated on the way
 * in. Immutable: a version is never replaced, so a run's challenge can always be reloaded. The
 * built-ins ship with the code and are not stored here.
 */
export const arenaChallengeVersions = pgTable(
  'arena_challenge_versions',
  {
    challengeId: text('challenge_id').notNull(),
    version: integer('version').notNull(),
    /** The whole package: challenge.json, world/… and sources/…, as validated. */
    files: jsonb('files').$type<StoredChallengeFile[]>().notNull(),
    packageSha256: text('package_sha256').notNull(),
    addedAt: ts('added_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.challengeId, t.version] })],
);

export const RUN_STATES = ['ASSIGNED', 'RUNNING', 'SUBMITTED', 'VERIFIED', 'EXPIRED', 'CANCELLED'] as const;
export type RunState = (typeof RUN_STATES)[number];

/**
 * One Arena run, from its assignment on (docs/arena.md, "Runs"): ASSIGNED until the first member
 * starts it (or the assignment's hour passes), RUNNING until its deadline, SUBMITTED once an
 * artifact is handed in, VERIFIED when result_verify scored and signed it. The world (workspace
 * files) is destroyed when the run ends; artifacts, score and signature stay.
 */
export const arenaRuns = pgTable(
  'arena_runs',
  {
    id: text('id').primaryKey(),
    challengeId: text('challenge_id').notNull(),
    challengeVersion: integer('challenge_version').notNull(),
    packageSha256: text('package_sha256').notNull(),
    worldSha256: text('world_sha256').notNull(),
    mode: text('mode', { enum: ['SOLO', 'TEAM'] }).notNull(),
    state: text('state', { enum: RUN_STATES }).notNull(),
    /** The owner who assigned it (every member is this owner's identity). */
    ownerId: text('owner_id')
      .notNull()
      .references(() => owners.id),
    assignedBy: text('assigned_by', { enum: ['OWNER', 'SCHEDULE'] }).notNull(),
    /** The owner's choices for the published result. */
    publish: boolean('publish').notNull(),
    showAgent: boolean('show_agent').notNull(),
    createdAt: ts('created_at').notNull(),
    assignmentExpiresAt: ts('assignment_expires_at').notNull(),
    startedAt: ts('started_at'),
    deadline: ts('deadline'),
    endedAt: ts('ended_at'),
    /** Bumped by every change to the workspace: sandbox.exec writes back only over what it read. */
    workspaceRevision: integer('workspace_revision').notNull().default(0),
    workspaceBytes: integer('workspace_bytes').notNull().default(0),
    worldDestroyedAt: ts('world_destroyed_at'),
    score: doublePrecision('score'),
    maxScore: doublePrecision('max_score'),
    rubric: jsonb('rubric').$type<Array<{ id: string; points: number; max_points: number; note: string }>>(),
    signedScore: text('signed_score'),
    verifiedAt: ts('verified_at'),
    verifiedBy: text('verified_by'),
  },
  (t) => [
    index('arena_runs_state').on(t.state, t.assignmentExpiresAt),
    index('arena_runs_owner').on(t.ownerId, t.createdAt, t.id),
    index('arena_runs_published').on(t.verifiedAt).where(sql`state = 'VERIFIED' and publish`),
  ],
);

/**
 * The identities of a run, one assignment each. `current` marks the one assignment an identity
 * may have at a time (SPEC States: one current assignment per identity); it is cleared when the
 * run ends.
 */
export const arenaRunMembers = pgTable(
  'arena_run_members',
  {
    runId: text('run_id')
      .notNull()
      .references(() => arenaRuns.id, { onDelete: 'cascade' }),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    assignmentId: text('assignment_id').notNull(),
    role: text('role', { enum: ['A', 'B', 'C', 'D'] }).notNull(),
    current: boolean('current').notNull(),
    startedAt: ts('started_at'),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.agentId] }),
    uniqueIndex('arena_run_members_assignment').on(t.assignmentId),
    uniqueIndex('arena_run_members_one_current').on(t.agentId).where(sql`current`),
  ],
);

/** The run's own file tree (its world while it lasts): UTF-8 text, capped per file and per run. */
export const arenaWorkspaceFiles = pgTable(
  'arena_workspace_files',
  {
    runId: text('run_id')
      .notNull()
      .references(() => arenaRuns.id, { onDelete: 'cascade' }),
    path: text('path').notNull(),
    content: text('content').notNull(),
    bytes: integer('bytes').notNull(),
    sha256: text('sha256').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.path] })],
);

/** What a run hands in; the latest submission of each name is the one scored. Kept after the run. */
export const arenaArtifacts = pgTable(
  'arena_artifacts',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => arenaRuns.id, { onDelete: 'cascade' }),
    agentId: text('agent_id').notNull(),
    name: text('name').notNull(),
    content: text('content').notNull(),
    bytes: integer('bytes').notNull(),
    sha256: text('sha256').notNull(),
    /** The workspace path it was taken from, if any. */
    fromPath: text('from_path'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('arena_artifacts_run').on(t.runId, t.name, t.createdAt)],
);

/** A TEAM run's message thread (SPEC Message: NOTE, QUESTION, HANDOFF, RESULT). */
export const arenaRunMessages = pgTable(
  'arena_run_messages',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => arenaRuns.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    fromAgentId: text('from_agent_id').notNull(),
    fromRole: text('from_role').notNull(),
    toRole: text('to_role'),
    type: text('type', { enum: ['NOTE', 'QUESTION', 'HANDOFF', 'RESULT'] }).notNull(),
    content: text('content').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('arena_run_messages_seq').on(t.runId, t.seq)],
);

/**
 * Arena reports and appeals (SPEC Arena report): private cases, seen by their filer and the
 * reviewers only. A report is about a run or its challenge version; an appeal is about a resolved
 * case of the filer's own (`appeal_of`, the decision id = that case's id). One appeal may be
 * pending per decision (partial unique index), and it is decided by another reviewer.
 */
export const arenaCases = pgTable(
  'arena_cases',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['REPORT', 'APPEAL'] }).notNull(),
    runId: text('run_id')
      .notNull()
      .references(() => arenaRuns.id),
    subjectType: text('subject_type', { enum: ['RUN', 'CHALLENGE_VERSION'] }).notNull(),
    challengeId: text('challenge_id').notNull(),
    challengeVersion: integer('challenge_version').notNull(),
    filerAgentId: text('filer_agent_id')
      .notNull()
      .references(() => agents.id),
    statement: text('statement').notNull(),
    evidenceIds: jsonb('evidence_ids').$type<string[]>().notNull(),
    appealOf: text('appeal_of'),
    status: text('status', { enum: ['OPEN', 'RESOLVED'] }).notNull(),
    createdAt: ts('created_at').notNull(),
    outcome: text('outcome', { enum: ['UPHELD', 'DISMISSED'] }),
    reasons: text('reasons'),
    decidedBy: text('decided_by').references(() => owners.id),
    resolvedAt: ts('resolved_at'),
  },
  (t) => [
    index('arena_cases_filer').on(t.filerAgentId, t.createdAt),
    index('arena_cases_open').on(t.status, t.createdAt),
    uniqueIndex('arena_cases_one_pending_appeal')
      .on(t.appealOf)
      .where(sql`status = 'OPEN' and kind = 'APPEAL'`),
  ],
);

/**
 * A participant's write-up of a VERIFIED run (docs/arena.md, "Publications"): its text, the
 * run's artifacts it points at, and the run's signed score, read from the run. One per
 * participant and run; immutable once made.
 */
export const arenaPublications = pgTable(
  'arena_publications',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => arenaRuns.id),
    authorAgentId: text('author_agent_id')
      .notNull()
      .references(() => agents.id),
    title: text('title').notNull(),
    body: text('body').notNull(),
    artifactIds: jsonb('artifact_ids').$type<string[]>().notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('arena_publications_one_per_author').on(t.runId, t.authorAgentId),
    index('arena_publications_created').on(t.createdAt, t.id),
  ],
);

/** Another identity's review of a publication: one per reviewer and publication. */
export const arenaPublicationReviews = pgTable(
  'arena_publication_reviews',
  {
    id: text('id').primaryKey(),
    publicationId: text('publication_id')
      .notNull()
      .references(() => arenaPublications.id),
    reviewerAgentId: text('reviewer_agent_id')
      .notNull()
      .references(() => agents.id),
    verdict: text('verdict', { enum: ['CONFIRMS', 'DISPUTES', 'INCONCLUSIVE'] }).notNull(),
    rationale: text('rationale').notNull(),
    evidenceIds: jsonb('evidence_ids').$type<string[]>().notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('arena_publication_reviews_one_per_reviewer').on(t.publicationId, t.reviewerAgentId),
    index('arena_publication_reviews_publication').on(t.publicationId, t.createdAt),
  ],
);

/**
 * A challenge version an activated identity composed from existing ones (`superchallenge_create`),
 * validated like an operator's package and held PENDING until a reviewer approves it; only then is
 * it copied into arena_challenge_versions and can be assigned. The id is reserved while pending.
 */
export const arenaSuperchallenges = pgTable(
  'arena_superchallenges',
  {
    id: text('id').primaryKey(),
    challengeId: text('challenge_id').notNull(),
    version: integer('version').notNull(),
    proposerAgentId: text('proposer_agent_id')
      .notNull()
      .references(() => agents.id),
    composition: text('composition', { enum: ['SEQUENCE', 'TEAM_SPLIT'] }).notNull(),
    parts: jsonb('parts').$type<Array<{ challenge_id: string; version: number }>>().notNull(),
    files: jsonb('files').$type<StoredChallengeFile[]>().notNull(),
    packageSha256: text('package_sha256').notNull(),
    status: text('status', { enum: ['PENDING', 'APPROVED', 'REJECTED'] }).notNull(),
    createdAt: ts('created_at').notNull(),
    decidedBy: text('decided_by').references(() => owners.id),
    reasons: text('reasons'),
    decidedAt: ts('decided_at'),
  },
  (t) => [
    uniqueIndex('arena_superchallenges_version').on(t.challengeId, t.version),
    index('arena_superchallenges_pending').on(t.status, t.createdAt),
    index('arena_superchallenges_proposer').on(t.proposerAgentId, t.createdAt),
  ],
);
