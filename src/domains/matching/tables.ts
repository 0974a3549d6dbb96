import { sql } from 'drizzle-orm';
import { bigserial, boolean, index, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from '../../storage/columns.ts';
import { campaigns } from '../campaigns/tables.ts';
import { agents, owners } from '../identity/tables.ts';
import { REQUEST_STATES, type StopReason, type WaitingFor } from './states.ts';

/**
 * Matching (SPEC "What the service does" 7, Matching; docs/matching.md): self-reported intents
 * and bounded proposals. Every request is between one agent (the one that would join) and one
 * campaign; it ends in that agent joining the campaign, or in a stop.
 */

/**
 * An intent: an identity's profile (PROFILE, one per identity) or a campaign's call for
 * applications (APPLICATION, one per campaign, with an opaque application_ref). Withdrawing one
 * deletes it; past `expires_at` it is no longer listed.
 */
export const matchingIntents = pgTable(
  'matching_intents',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['PROFILE', 'APPLICATION'] }).notNull(),
    agentId: text('agent_id').references(() => agents.id),
    campaignId: text('campaign_id').references(() => campaigns.id),
    ownerId: text('owner_id')
      .notNull()
      .references(() => owners.id),
    alias: text('alias').notNull(),
    topic: text('topic').notNull(),
    helpOffered: text('help_offered').notNull(),
    effort: text('effort').notNull(),
    availability: text('availability').notNull(),
    /** APPLICATION only: what matching_interest names as task_ref; random, never the campaign id. */
    applicationRef: text('application_ref'),
    /** APPLICATION: the owner's choice; PROFILE: the identity's consent decides (agents.matching_public). */
    isPublic: boolean('public').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('matching_intents_agent_key').on(t.agentId),
    uniqueIndex('matching_intents_campaign_key').on(t.campaignId),
    uniqueIndex('matching_intents_ref_key').on(t.applicationRef),
    index('matching_intents_listing_idx').on(t.expiresAt),
  ],
);

/**
 * A matching request: PROPOSED until the responder answers; TENTATIVE while the campaign owner,
 * then the joining agent's owner, decide; JOINED once both approved; STOPPED otherwise.
 */
export const matchingRequests = pgTable(
  'matching_requests',
  {
    id: text('id').primaryKey(),
    intentId: text('intent_id').notNull(),
    intentKind: text('intent_kind', { enum: ['PROFILE', 'APPLICATION'] }).notNull(),
    /** What the intent said when the request was made (the intent may be withdrawn later). */
    intentAlias: text('intent_alias').notNull(),
    intentTopic: text('intent_topic').notNull(),
    applicationRef: text('application_ref').notNull(),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    campaignOwnerId: text('campaign_owner_id')
      .notNull()
      .references(() => owners.id),
    requesterAgentId: text('requester_agent_id')
      .notNull()
      .references(() => agents.id),
    /** The agent or campaign the request is addressed to (one open request per requester and target). */
    targetKey: text('target_key').notNull(),
    /** PROFILE requests: the agent whose profile it was (it responds). */
    targetAgentId: text('target_agent_id').references(() => agents.id),
    /** Who would join: the requester applying, or the profile's agent invited. */
    joinerAgentId: text('joiner_agent_id')
      .notNull()
      .references(() => agents.id),
    joinerOwnerId: text('joiner_owner_id')
      .notNull()
      .references(() => owners.id),
    /** Who joined: the joining agent, or the guest identity paired for it (JOINED only). */
    joinedAgentId: text('joined_agent_id').references(() => agents.id),
    reason: text('reason').notNull(),
    state: text('state', { enum: REQUEST_STATES }).notNull(),
    waitingFor: text('waiting_for').$type<WaitingFor>(),
    stopReason: text('stop_reason').$type<StopReason>(),
    responseReason: text('response_reason'),
    respondedBy: text('responded_by'),
    campaignOwnerDecidedAt: ts('campaign_owner_decided_at'),
    joinerOwnerDecidedAt: ts('joiner_owner_decided_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    endedAt: ts('ended_at'),
  },
  (t) => [
    uniqueIndex('matching_requests_open_key')
      .on(t.requesterAgentId, t.targetKey)
      .where(sql`state in ('PROPOSED', 'TENTATIVE')`),
    index('matching_requests_requester_idx').on(t.requesterAgentId, t.id),
    index('matching_requests_target_idx').on(t.targetKey, t.id),
    index('matching_requests_pair_idx').on(t.campaignId, t.joinerAgentId),
    index('matching_requests_joiner_owner_idx').on(t.joinerOwnerId),
    index('matching_requests_campaign_owner_idx').on(t.campaignOwnerId),
    index('matching_requests_open_expiry_idx').on(t.expiresAt).where(sql`state in ('PROPOSED', 'TENTATIVE')`),
  ],
);

/** Every change of a request, in commit order per request: what matching_watch reads. */
export const matchingChanges = pgTable(
  'matching_changes',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    requestId: text('request_id')
      .notNull()
      .references(() => matchingRequests.id),
    state: text('state', { enum: REQUEST_STATES }).notNull(),
    at: ts('at').notNull(),
  },
  (t) => [index('matching_changes_request_idx').on(t.requestId)],
);

/** A block between an agent and a campaign: no request between the two is made again. */
export const matchingBlocks = pgTable(
  'matching_blocks',
  {
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id),
    blockedBy: text('blocked_by').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.agentId] })],
);
