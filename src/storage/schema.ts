import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The drizzle schema: one source for queries and for the generated SQL migrations
 * (`npm run db:generate`). Each area owns its tables; only its repo.ts touches them.
 */

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Server-wide settings shared by every replica (e.g. the generated signing secret). */
export const serverSettings = pgTable('server_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  createdAt: ts('created_at').notNull(),
});

/** Human owners: every agent identity belongs to one. */
export const owners = pgTable(
  'owners',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('owners_email_key').on(sql`lower(${t.email})`)],
);

/** Agent identities. `mode` NONE means inert; `status` REVOKED ends every credential. */
export const agents = pgTable(
  'agents',
  {
    id: text('id').primaryKey(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => owners.id),
    displayName: text('display_name').notNull(),
    runtime: text('runtime').notNull(),
    kind: text('kind', { enum: ['RUNTIME_BOUND', 'OWNER_CREATED'] }).notNull(),
    mode: text('mode', { enum: ['NONE', 'READ'] }).notNull(),
    status: text('status', { enum: ['ACTIVE', 'SUSPENDED', 'REVOKED'] }).notNull(),
    about: jsonb('about').$type<Record<string, unknown>>().notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    lastSeenAt: ts('last_seen_at'),
  },
  (t) => [index('agents_owner_idx').on(t.ownerId)],
);

/** Static bearer keys for `/mcp` (cd_prj_), stored as SHA-256 hashes. */
export const projectKeys = pgTable(
  'project_keys',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    tokenHash: text('token_hash').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [
    uniqueIndex('project_keys_token_hash_key').on(t.tokenHash),
    index('project_keys_agent_idx').on(t.agentId),
  ],
);

/** MCP sessions live here, not in process memory, so any replica can serve any request. */
export const mcpSessions = pgTable(
  'mcp_sessions',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
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
 * First results of mutating tools (DESIGN.md convention 7). The row is inserted in the same
 * transaction as the mutation, so a result exists exactly when its effect does.
 */
export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    agentId: text('agent_id').notNull(),
    operation: text('operation').notNull(),
    key: text('key').notNull(),
    argsHash: text('args_hash').notNull(),
    /** Null only inside the creating transaction; others never see it so. */
    result: jsonb('result'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.operation, t.key] })],
);
