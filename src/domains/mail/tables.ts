import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { ProcessedMailInput } from '../../parsing/mail/types.ts';
import { bytea, ts } from '../../storage/columns.ts';
import { campaigns } from '../campaigns/tables.ts';
import { agentRef } from '../identity/tables.ts';

/**
 * Campaign mailboxes (SPEC "What the service does" 5, Mailbox message, Limits: Mailbox): one
 * receiving address per campaign, the mail it received (sanitised text and attachment metadata;
 * attachment bytes are never stored), every delivery attempt, and the owner's grants of access.
 */

export const mailboxes = pgTable(
  'mailboxes',
  {
    campaignId: text('campaign_id')
      .primaryKey()
      .references(() => campaigns.id),
    /** `<campaign-slug>-<random>`; the address is `<local_part>@<domain>`. */
    localPart: text('local_part').notNull(),
    domain: text('domain').notNull(),
    /** UNVERIFIED until a delivery arrives, then VERIFIED (SPEC: READY only means enabled). */
    deliveryState: text('delivery_state').notNull(),
    deliveryVerifiedAt: ts('delivery_verified_at'),
    messageLimit: integer('message_limit').notNull(),
    byteLimit: bigint('byte_limit', { mode: 'number' }).notNull(),
    /** When the owner was last told the mailbox is full (once per filling). */
    fullNoticeAt: ts('full_notice_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('mailboxes_address_key').on(sql`lower(${t.localPart})`, sql`lower(${t.domain})`)],
);

export const mailMessages = pgTable(
  'mail_messages',
  {
    id: text('id').primaryKey(),
    /** Arrival order across the deployment: mail cursors are positions in it. */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    via: text('via').notNull(),
    messageIdHeader: text('message_id_header'),
    bodyHash: text('body_hash').notNull(),
    fromAddress: text('from_address'),
    toAddress: text('to_address'),
    subject: text('subject'),
    sentAt: ts('sent_at'),
    text: text('text').notNull(),
    /** Bytes as received: what counts against the mailbox's byte limit. */
    size: integer('size').notNull(),
    attachments: jsonb('attachments')
      .$type<Array<{ name: string | null; content_type: string; size: number; sha256: string | null }>>()
      .notNull(),
    flags: jsonb('flags').$type<string[]>().notNull(),
    instructionSpans: jsonb('instruction_spans').$type<unknown[]>().notNull(),
    receivedAt: ts('received_at').notNull(),
    /** The campaign evidence this mail became (evidence_submit with mail_id): made once, then shared. */
    evidenceId: text('evidence_id'),
  },
  (t) => [
    uniqueIndex('mail_messages_seq_key').on(t.seq),
    index('mail_messages_campaign_idx').on(t.campaignId, t.seq),
    // The same message delivered twice (a provider's retry, two routes) is stored once.
    uniqueIndex('mail_messages_duplicate_key').on(
      t.campaignId,
      sql`coalesce(${t.messageIdHeader}, '')`,
      t.bodyHash,
    ),
  ],
);

export const mailDeliveryAttempts = pgTable(
  'mail_delivery_attempts',
  {
    id: text('id').primaryKey(),
    /** Null when the recipient matched no mailbox. */
    campaignId: text('campaign_id'),
    via: text('via').notNull(),
    recipient: text('recipient'),
    remote: text('remote'),
    size: integer('size'),
    /** ACCEPTED, DUPLICATE or REFUSED. */
    outcome: text('outcome').notNull(),
    /** The refusal (MailRefusal) when REFUSED. */
    reason: text('reason'),
    mailId: text('mail_id'),
    /** A provider's delivery id, unique: a replayed delivery is refused (Postal signs no timestamp). */
    providerDeliveryId: text('provider_delivery_id'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    index('mail_attempts_campaign_idx').on(t.campaignId, t.createdAt),
    // The retention sweep (retention.ts) deletes by age across every mailbox.
    index('mail_attempts_created_idx').on(t.createdAt),
    uniqueIndex('mail_attempts_provider_key')
      .on(t.via, t.providerDeliveryId, t.campaignId)
      .where(sql`${t.providerDeliveryId} is not null and ${t.outcome} <> 'REFUSED'`),
  ],
);

/**
 * Mail taken but not yet read (issue 40): its parse ran out of time or found the parser full, so
 * it waits here, as received, to be read again later (deferred.ts) rather than the sender being
 * told to retry. One row per mailbox it was for, with the delivery attempt (DEFERRED) that
 * becomes the final one. Nobody reads these rows but that sweep: agents see the mail once read.
 */
export const mailDeferred = pgTable(
  'mail_deferred',
  {
    id: text('id').primaryKey(),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    recipient: text('recipient').notNull(),
    /** The DEFERRED attempt, made ACCEPTED, DUPLICATE or REFUSED when the mail is read. */
    attemptId: text('attempt_id').notNull(),
    via: text('via').notNull(),
    remote: text('remote'),
    providerDeliveryId: text('provider_delivery_id'),
    size: integer('size').notNull(),
    /** The message as received (SMTP, raw MIME), or else the provider's processed message. */
    raw: bytea('raw'),
    processed: jsonb('processed').$type<ProcessedMailInput>(),
    /** Reads tried so far; past the last one the mail is refused as unreadable. */
    tries: integer('tries').notNull(),
    nextTryAt: ts('next_try_at').notNull(),
    receivedAt: ts('received_at').notNull(),
  },
  (t) => [index('mail_deferred_due_idx').on(t.nextTryAt)],
);

/** An agent's access to a campaign's mail: requested by the agent, decided by the agent's owner. */
export const mailAccess = pgTable(
  'mail_access',
  {
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    agentId: agentRef(),
    /** The current request (mar_…): a new request after a decline or revocation gets a new id. */
    requestId: text('request_id').notNull(),
    /** REQUESTED, GRANTED, DECLINED, REVOKED. */
    status: text('status').notNull(),
    reason: text('reason').notNull(),
    requestedAt: ts('requested_at').notNull(),
    decidedAt: ts('decided_at'),
    decidedBy: text('decided_by'),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.agentId] }),
    uniqueIndex('mail_access_request_key').on(t.requestId),
  ],
);

/**
 * Provider deliveries seen, install-wide: a signed Mailgun token or a Postal message is taken
 * once, whichever mailboxes it names (a signature that does not cover the recipients must not be
 * reusable against another mailbox).
 */
export const mailProviderDeliveries = pgTable(
  'mail_provider_deliveries',
  {
    via: text('via').notNull(),
    deliveryId: text('delivery_id').notNull(),
    seenAt: ts('seen_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.via, t.deliveryId] }),
    index('mail_provider_deliveries_seen_idx').on(t.via, t.seenAt),
  ],
);
