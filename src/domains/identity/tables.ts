import { sql } from 'drizzle-orm';
import {
  bigserial,
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

/** The identity a row belongs to (required, a foreign key); other areas' tables use it too. */
export function agentRef() {
  return text('agent_id')
    .notNull()
    .references(() => agents.id);
}

/** The owner a row belongs to (required, a foreign key). */
export function ownerRef() {
  return text('owner_id')
    .notNull()
    .references(() => owners.id);
}

/** Tables of the identity area: owners, agents, their MCP sessions, console sessions, audit and inbox. */

/** Human owners: every agent identity belongs to one. */
export const owners = pgTable(
  'owners',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: ts('created_at').notNull(),
    /** Named by the operator to decide Arena reports and appeals (docs/arena.md, "Reports"). */
    arenaReviewer: boolean('arena_reviewer').notNull().default(false),
  },
  (t) => [uniqueIndex('owners_email_key').on(sql`lower(${t.email})`)],
);

/** Agent identities. `mode` NONE means inert; `status` SUSPENDED or REVOKED stops everything. */
export const agents = pgTable(
  'agents',
  {
    id: text('id').primaryKey(),
    ownerId: ownerRef(),
    displayName: text('display_name').notNull(),
    runtime: text('runtime').notNull(),
    kind: text('kind', { enum: ['RUNTIME_BOUND', 'OWNER_CREATED'] }).notNull(),
    /**
     * NONE: inert (new, or deactivated by its owner: no tool works but identity_whoami and
     * capabilities_describe); CAMPAIGN: the owner activated it for campaign work only (by
     * inviting it, or accepting an invitation); READ: public reading as well.
     */
    mode: text('mode', { enum: ['NONE', 'CAMPAIGN', 'READ'] }).notNull(),
    status: text('status', { enum: ['ACTIVE', 'SUSPENDED', 'REVOKED'] }).notNull(),
    /** Set with status SUSPENDED: the reason its owner (or the operator) gave, and when. */
    suspendReason: text('suspend_reason'),
    suspendedAt: ts('suspended_at'),
    about: jsonb('about').$type<Record<string, unknown>>().notNull(),
    /** The owner's consent to matching (SPEC Permissions 10); off until the owner turns it on. */
    matchingEnabled: boolean('matching_enabled').notNull().default(false),
    /** Whether the identity's matching profile may appear on the public intents list. */
    matchingPublic: boolean('matching_public').notNull().default(false),
    /** The owner's separate decision to let the identity take part in the Arena (docs/arena.md). */
    arenaEnabled: boolean('arena_enabled').notNull().default(false),
    /**
     * A guest identity (cross-workspace guest pairing, docs/matching.md) is bound to one matching
     * request and works only in that request's campaign; null for every other identity.
     */
    guestRequestId: text('guest_request_id'),
    guestCampaignId: text('guest_campaign_id'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    lastSeenAt: ts('last_seen_at'),
  },
  (t) => [index('agents_owner_idx').on(t.ownerId)],
);

/** MCP sessions live here, not in process memory, so any replica can serve any request. */
export const mcpSessions = pgTable(
  'mcp_sessions',
  {
    id: text('id').primaryKey(),
    agentId: agentRef(),
    protocolVersion: text('protocol_version').notNull(),
    clientName: text('client_name'),
    clientVersion: text('client_version'),
    createdAt: ts('created_at').notNull(),
    lastSeenAt: ts('last_seen_at').notNull(),
    endedAt: ts('ended_at'),
  },
  (t) => [index('mcp_sessions_agent_idx').on(t.agentId)],
);

/**
 * The resources a 2025-era session asked to be told about (resources/subscribe), for its
 * notification stream (GET /mcp) on whichever replica holds it. A session's rows go with it.
 */
export const mcpSubscriptions = pgTable(
  'mcp_subscriptions',
  {
    sessionId: text('session_id')
      .notNull()
      .references(() => mcpSessions.id, { onDelete: 'cascade' }),
    uri: text('uri').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.uri] })],
);

/** Console sessions of owners. The id is the SHA-256 of the cookie value; the cookie is the secret. */
export const ownerSessions = pgTable(
  'owner_sessions',
  {
    id: text('id').primaryKey(),
    ownerId: ownerRef(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    lastSeenAt: ts('last_seen_at').notNull(),
    endedAt: ts('ended_at'),
  },
  (t) => [index('owner_sessions_owner_idx').on(t.ownerId)],
);

/** Failed sign-ins per account and per address, counted in the database so every replica sees them. */
export const signinThrottle = pgTable('signin_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  windowStartedAt: ts('window_started_at').notNull(),
  lockedUntil: ts('locked_until'),
});

/** What owners did in the console, newest last. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    ownerId: ownerRef(),
    action: text('action').notNull(),
    subjectId: text('subject_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('audit_log_owner_idx').on(t.ownerId, t.createdAt)],
);

/** Notifications waiting for an MCP session: delivered on its GET stream or in its next POST answer. */
export const mcpNotifications = pgTable(
  'mcp_notifications',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    sessionId: text('session_id')
      .notNull()
      .references(() => mcpSessions.id),
    method: text('method').notNull(),
    params: jsonb('params').$type<Record<string, unknown>>().notNull(),
    createdAt: ts('created_at').notNull(),
    deliveredAt: ts('delivered_at'),
  },
  (t) => [index('mcp_notifications_pending_idx').on(t.sessionId).where(sql`${t.deliveredAt} is null`)],
);

/** The latest domain-control check of each domain an agent named (identity_verify_domain). */
export const agentDomains = pgTable(
  'agent_domains',
  {
    agentId: agentRef(),
    domain: text('domain').notNull(),
    verified: boolean('verified').notNull(),
    method: text('method'),
    checkedAt: ts('checked_at').notNull(),
    verifiedAt: ts('verified_at'),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.domain] })],
);

/**
 * Messages from an owner to one of their agents (SPEC Events 2): handed out once, in the result
 * of the agent's next tool call, and announced to its open sessions as a notification.
 */
export const ownerMessages = pgTable(
  'owner_messages',
  {
    id: text('id').primaryKey(),
    agentId: agentRef(),
    ownerId: ownerRef(),
    text: text('text').notNull(),
    createdAt: ts('created_at').notNull(),
    deliveredAt: ts('delivered_at'),
  },
  (t) => [index('owner_messages_pending_idx').on(t.agentId).where(sql`${t.deliveredAt} is null`)],
);
