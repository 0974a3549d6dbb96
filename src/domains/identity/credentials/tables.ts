import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from '../../../storage/columns.ts';
import { agentRef, agents, ownerRef, owners } from '../tables.ts';

/** Tables of credentials: project keys, tokens, bootstrap tokens, device pairing and native OAuth. */

/** Static bearer keys for `/mcp` (cd_prj_), stored as SHA-256 hashes. */
export const projectKeys = pgTable(
  'project_keys',
  {
    id: text('id').primaryKey(),
    agentId: agentRef(),
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
    /** Guest pairing: the participant whose bearer asked for the guest (the request's joining agent). */
    requestedBy: text('requested_by').references(() => agents.id),
    /**
     * The registered client that asked (RFC 8628 §3.1 client_id), when one did: only it may poll,
     * and approval makes an OAuth connection (grant_id) its tokens belong to, as a consent does.
     */
    clientId: text('client_id'),
    grantId: text('grant_id'),
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
    agentId: agentRef(),
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
    /**
     * The resource the token is for (RFC 8707): this server's `/mcp` when it was issued. Null
     * only on tokens issued before audiences were recorded; those are accepted until they end.
     */
    audience: text('audience'),
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
    agentId: agentRef(),
    tokenHash: text('token_hash').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [uniqueIndex('bootstrap_tokens_token_hash_key').on(t.tokenHash)],
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
    ownerId: ownerRef(),
    agentId: agentRef(),
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
 * Owner API tokens (cd_own_): an owner's own bearer for the `/v1/…` console operations, for
 * scripts. Only the hash is kept; `prefix` (the first characters) lets the owner tell them apart.
 * Never accepted on `/mcp`: they are not agent credentials.
 */
export const ownerTokens = pgTable(
  'owner_tokens',
  {
    id: text('id').primaryKey(),
    ownerId: ownerRef(),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    prefix: text('prefix').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    lastUsedAt: ts('last_used_at'),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    uniqueIndex('owner_tokens_token_hash_key').on(t.tokenHash),
    index('owner_tokens_owner_idx').on(t.ownerId, t.createdAt),
  ],
);
