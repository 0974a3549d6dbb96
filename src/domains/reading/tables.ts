import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { bytea, ts } from '../../storage/columns.ts';
import { agents, owners } from '../identity/tables.ts';

/** Tables of the reading area: evidence, its raw bytes, and policy receipts. */

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
    decision: text('decision', { enum: ['ALLOW_ONCE', 'DENY', 'SIMULATE'] }).notNull(),
    reasonCode: text('reason_code').notNull(),
    rule: text('rule').notNull(),
    inputs: jsonb('inputs').$type<Record<string, unknown>>().notNull(),
    evidenceId: text('evidence_id'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('policy_receipts_agent_idx').on(t.agentId, t.createdAt)],
);

/**
 * What was read or imported: citation, extracted text and provenance. Kept for verification.
 * A read (SERVER_FETCH) has its agent, receipt and HTTP status. An import (OWNER_IMPORT by a
 * person in the console, AGENT_SUBMITTED by an agent) has no receipt or status: an owner's has
 * `owner_id` and no agent; its URLs are the source the importer named (or
 * `urn:cairn:import:<id>`), and `import_format`, `source_date` and `authorized` say what it is.
 *
 * `search_vector` (migration 0015, docs/research.md "Full-text search") is a stored generated
 * tsvector of the title and the first 100,000 characters of the text, written by hand in the
 * migration and left out of this definition on purpose: drizzle would select it with every row
 * and ask every insert for it. Only its GIN index is declared here, so drizzle-kit keeps it.
 */
export const evidence = pgTable(
  'evidence',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id').references(() => agents.id),
    ownerId: text('owner_id').references(() => owners.id),
    provenance: text('provenance').notNull(),
    trustLabel: text('trust_label').notNull(),
    requestedUrl: text('requested_url').notNull(),
    canonicalUrl: text('canonical_url').notNull(),
    retrievedAt: ts('retrieved_at').notNull(),
    httpStatus: integer('http_status'),
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
    receiptId: text('receipt_id').references(() => policyReceipts.id),
    importFormat: text('import_format'),
    sourceDate: ts('source_date'),
    authorized: boolean('authorized'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    check('evidence_author_check', sql`${t.agentId} is not null or ${t.ownerId} is not null`),
    index('evidence_owner_idx').on(t.ownerId, t.createdAt),
    index('evidence_campaign_idx').on(t.campaignId),
    index('evidence_agent_url_idx').on(t.agentId, t.canonicalUrl, t.retrievedAt),
    index('evidence_agent_requested_idx').on(t.agentId, t.requestedUrl, t.retrievedAt),
    index('evidence_task_idx').on(t.taskId),
    index('evidence_search_idx').using('gin', sql`"search_vector"`),
  ],
);
