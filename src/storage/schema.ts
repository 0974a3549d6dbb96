import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/**
 * The drizzle schema: one source for queries and for the generated SQL migrations
 * (`npm run db:generate`). Each area owns its tables; only its repo.ts touches them.
 */

/** A timestamptz column read as a Date (every table's timestamps; campaign-schema.ts too). */
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Raw bytes (PostgreSQL bytea), as Node Buffers. */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

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

/** Console sessions of owners. The id is the SHA-256 of the cookie value; the cookie is the secret. */
export const ownerSessions = pgTable(
  'owner_sessions',
  {
    id: text('id').primaryKey(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => owners.id),
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
    ownerId: text('owner_id')
      .notNull()
      .references(() => owners.id),
    action: text('action').notNull(),
    subjectId: text('subject_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('audit_log_owner_idx').on(t.ownerId, t.createdAt)],
);

/** RFC 8628 device authorizations: a runtime asks, an owner approves or declines by user code. */
export const deviceAuthorizations = pgTable(
  'device_authorizations',
  {
    id: text('id').primaryKey(),
    deviceCodeHash: text('device_code_hash').notNull(),
    userCode: text('user_code').notNull(),
    displayName: text('display_name').notNull(),
    runtime: text('runtime').notNull(),
    requestedMode: text('requested_mode'),
    about: jsonb('about').$type<Record<string, unknown>>().notNull(),
    matchingRequestId: text('matching_request_id'),
    status: text('status', { enum: ['PENDING', 'APPROVED', 'DECLINED', 'CONSUMED'] }).notNull(),
    activateRead: boolean('activate_read').notNull().default(false),
    ownerId: text('owner_id').references(() => owners.id),
    agentId: text('agent_id').references(() => agents.id),
    intervalSeconds: integer('interval_seconds').notNull(),
    lastPolledAt: ts('last_polled_at'),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    decidedAt: ts('decided_at'),
  },
  (t) => [
    uniqueIndex('device_authorizations_device_code_key').on(t.deviceCodeHash),
    uniqueIndex('device_authorizations_pending_user_code_key')
      .on(t.userCode)
      .where(sql`${t.status} = 'PENDING'`),
  ],
);

/**
 * Access (cd_acc_, 60 min) and refresh (cd_ref_, 7 days) tokens. `family` ties together every
 * token of one pairing or bootstrap exchange, so a refresh replay can revoke them all at once.
 */
export const agentTokens = pgTable(
  'agent_tokens',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['ACCESS', 'REFRESH'] }).notNull(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    family: text('family').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /** Refresh tokens: when it was exchanged. */
    spentAt: ts('spent_at'),
    /** Refresh tokens: the pair it was exchanged for, sealed with the server secret, for the duplicate-retry window. */
    retrySealed: text('retry_sealed'),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [
    uniqueIndex('agent_tokens_token_hash_key').on(t.tokenHash),
    index('agent_tokens_family_idx').on(t.family),
    index('agent_tokens_sealed_idx').on(t.spentAt).where(sql`${t.retrySealed} is not null`),
    index('agent_tokens_agent_idx').on(t.agentId),
  ],
);

/** Bootstrap tokens (cd_boot_) of owner-created identities: exchangeable until they expire. */
export const bootstrapTokens = pgTable(
  'bootstrap_tokens',
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
  (t) => [uniqueIndex('bootstrap_tokens_token_hash_key').on(t.tokenHash)],
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
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    domain: text('domain').notNull(),
    verified: boolean('verified').notNull(),
    method: text('method'),
    checkedAt: ts('checked_at').notNull(),
    verifiedAt: ts('verified_at'),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.domain] })],
);

/**
 * The exact bytes of every response read, content-addressed (`sha256:<hex>` of the bytes as
 * received, before content decoding) so the same page read twice is stored once.
 */
export const evidenceBlobs = pgTable('evidence_blobs', {
  hash: text('hash').primaryKey(),
  bytes: bytea('bytes').notNull(),
  size: integer('size').notNull(),
  createdAt: ts('created_at').notNull(),
});

/** Policy receipts: every read decision, allow or deny, with the rule and the inputs behind it. */
export const policyReceipts = pgTable(
  'policy_receipts',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    tool: text('tool').notNull(),
    decision: text('decision', { enum: ['ALLOW_ONCE', 'DENY'] }).notNull(),
    reasonCode: text('reason_code').notNull(),
    rule: text('rule').notNull(),
    inputs: jsonb('inputs').$type<Record<string, unknown>>().notNull(),
    evidenceId: text('evidence_id'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('policy_receipts_agent_idx').on(t.agentId, t.createdAt)],
);

/** What was read: citation, extracted text and provenance of one read. Kept for verification. */
export const evidence = pgTable(
  'evidence',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    provenance: text('provenance').notNull(),
    trustLabel: text('trust_label').notNull(),
    requestedUrl: text('requested_url').notNull(),
    canonicalUrl: text('canonical_url').notNull(),
    retrievedAt: ts('retrieved_at').notNull(),
    httpStatus: integer('http_status').notNull(),
    bodyHash: text('body_hash')
      .notNull()
      .references(() => evidenceBlobs.hash),
    contentType: text('content_type').notNull(),
    contentEncoding: text('content_encoding'),
    kind: text('kind').notNull(),
    title: text('title'),
    text: text('text').notNull(),
    pages: jsonb('pages').$type<Array<{ page: number; offset: number }>>().notNull(),
    transformations: jsonb('transformations').$type<string[]>().notNull(),
    flags: jsonb('flags').$type<string[]>().notNull(),
    instructionSpans: jsonb('instruction_spans').$type<unknown[]>().notNull(),
    hops: jsonb('hops').$type<string[]>().notNull(),
    declaredPurpose: text('declared_purpose').notNull(),
    taskId: text('task_id'),
    campaignId: text('campaign_id'),
    receiptId: text('receipt_id')
      .notNull()
      .references(() => policyReceipts.id),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('evidence_agent_url_idx').on(t.agentId, t.canonicalUrl, t.retrievedAt),
    index('evidence_agent_requested_idx').on(t.agentId, t.requestedUrl, t.retrievedAt),
    index('evidence_task_idx').on(t.taskId),
  ],
);

/** OAuth clients registered by MCP clients themselves (RFC 7591). Secrets of confidential clients are hashed. */
export const oauthClients = pgTable('oauth_clients', {
  id: text('id').primaryKey(),
  secretHash: text('secret_hash'),
  clientName: text('client_name').notNull(),
  redirectUris: jsonb('redirect_uris').$type<string[]>().notNull(),
  tokenEndpointAuthMethod: text('token_endpoint_auth_method', {
    enum: ['none', 'client_secret_post', 'client_secret_basic'],
  }).notNull(),
  grantTypes: jsonb('grant_types').$type<string[]>().notNull(),
  /** Other registered metadata kept as given (client_uri, software_id, …), for display only. */
  metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull(),
  createdAt: ts('created_at').notNull(),
  lastUsedAt: ts('last_used_at'),
});

/** Authorization requests waiting for (or decided by) an owner on the consent page. */
export const oauthRequests = pgTable(
  'oauth_requests',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id),
    redirectUri: text('redirect_uri').notNull(),
    state: text('state'),
    codeChallenge: text('code_challenge').notNull(),
    scope: text('scope').notNull(),
    resource: text('resource').notNull(),
    status: text('status', { enum: ['PENDING', 'APPROVED', 'DECLINED'] }).notNull(),
    /** Hash of the secret cookie given to the browser that started the request: only it may decide. */
    browserBindingHash: text('browser_binding_hash'),
    ownerId: text('owner_id').references(() => owners.id),
    grantId: text('grant_id'),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    decidedAt: ts('decided_at'),
  },
  (t) => [index('oauth_requests_expires_idx').on(t.expiresAt)],
);

/**
 * Connections: an owner's approval of one client, with the identity it created. Tokens issued
 * under it carry its id as their family; it ends 7 days after approval whatever refreshes happen.
 */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id),
    ownerId: text('owner_id')
      .notNull()
      .references(() => owners.id),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    scope: text('scope').notNull(),
    resource: text('resource').notNull(),
    approvedAt: ts('approved_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [index('oauth_grants_owner_idx').on(t.ownerId, t.approvedAt)],
);

/** Authorization codes: single use, one minute, bound to client, redirect URI, PKCE challenge and resource. */
export const oauthCodes = pgTable('oauth_codes', {
  codeHash: text('code_hash').primaryKey(),
  grantId: text('grant_id')
    .notNull()
    .references(() => oauthGrants.id),
  clientId: text('client_id').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  codeChallenge: text('code_challenge').notNull(),
  resource: text('resource').notNull(),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
});

/**
 * Messages from an owner to one of their agents (SPEC Events 2): handed out once, in the result
 * of the agent's next tool call, and announced to its open sessions as a notification.
 */
export const ownerMessages = pgTable(
  'owner_messages',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    ownerId: text('owner_id')
      .notNull()
      .references(() => owners.id),
    text: text('text').notNull(),
    createdAt: ts('created_at').notNull(),
    deliveredAt: ts('delivered_at'),
  },
  (t) => [index('owner_messages_pending_idx').on(t.agentId).where(sql`${t.deliveredAt} is null`)],
);
