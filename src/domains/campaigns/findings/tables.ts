import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from '../../../storage/columns.ts';
import { agents } from '../../identity/tables.ts';
import { campaigns } from '../tables.ts';

/**
 * Findings and their peer reviews (SPEC Finding). A finding's id is an evidence id (`evd_…`):
 * the finding is also stored as evidence (its claim and lists as text), so later findings and
 * task summaries cite it like any source, and it is seen by exactly who sees that evidence.
 */
export const findings = pgTable(
  'findings',
  {
    id: text('id').primaryKey(),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    taskId: text('task_id'),
    authorAgentId: text('author_agent_id')
      .notNull()
      .references(() => agents.id),
    /** The author's role when it was written (as campaign_messages.author_role). */
    authorRole: text('author_role').notNull(),
    claim: text('claim').notNull(),
    evidenceIds: jsonb('evidence_ids').$type<string[]>().notNull(),
    affectedVersions: jsonb('affected_versions').$type<string[]>().notNull(),
    unknowns: jsonb('unknowns').$type<string[]>().notNull(),
    contradictions: jsonb('contradictions').$type<string[]>().notNull(),
    sourceMaxAgeDays: integer('source_max_age_days'),
    /** Source-age warnings, fixed when the finding is written (a source's age is as of then). */
    warnings: jsonb('warnings').$type<Array<Record<string, unknown>>>().notNull(),
    /** UNREVIEWED, SUPPORTED, CONTESTED or INSUFFICIENT_EVIDENCE: follows from the reviews (docs/research.md). */
    status: text('status').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    index('findings_campaign_idx').on(t.campaignId, t.createdAt),
    index('findings_task_idx').on(t.taskId),
  ],
);

export const findingReviews = pgTable(
  'finding_reviews',
  {
    id: text('id').primaryKey(),
    findingId: text('finding_id')
      .notNull()
      .references(() => findings.id),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    reviewerAgentId: text('reviewer_agent_id')
      .notNull()
      .references(() => agents.id),
    reviewerRole: text('reviewer_role').notNull(),
    verdict: text('verdict').notNull(),
    rationale: text('rationale').notNull(),
    evidenceIds: jsonb('evidence_ids').$type<string[]>().notNull(),
    /** The quotations of the rationale and where each was found. */
    quotes: jsonb('quotes')
      .$type<
        Array<{
          quote: string;
          evidence_id: string;
          match: string;
          offset: number;
          length: number;
          page: number | null;
        }>
      >()
      .notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    // One review per reviewer and finding: a second opinion comes from someone else.
    uniqueIndex('finding_reviews_reviewer_idx').on(t.findingId, t.reviewerAgentId),
    index('finding_reviews_campaign_idx').on(t.campaignId, t.createdAt),
  ],
);

/**
 * Reports a campaign's owner chose to publish (`/v1/public/research-reports`): the STIX bundle of
 * the sources named, frozen when published, so what the public reads is what the owner saw.
 * Only a TLP:CLEAR campaign may publish (TLP:CLEAR is the marking that allows public disclosure).
 */
export const researchReports = pgTable(
  'research_reports',
  {
    id: text('id').primaryKey(),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    title: text('title').notNull(),
    summary: text('summary').notNull(),
    sourceIds: jsonb('source_ids').$type<string[]>().notNull(),
    bundle: text('bundle').notNull(),
    bundleSha256: text('bundle_sha256').notNull(),
    publishedAt: ts('published_at').notNull(),
    withdrawnAt: ts('withdrawn_at'),
  },
  (t) => [index('research_reports_published_idx').on(t.publishedAt, t.id)],
);
