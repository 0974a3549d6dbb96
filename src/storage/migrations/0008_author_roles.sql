ALTER TABLE "campaign_evidence" ADD COLUMN "author_role" text DEFAULT 'PARTICIPANT' NOT NULL;--> statement-breakpoint
ALTER TABLE "campaign_messages" ADD COLUMN "author_role" text DEFAULT 'PARTICIPANT' NOT NULL;--> statement-breakpoint
-- Rows written before the column existed get the role their ledger events recorded.
UPDATE "campaign_messages" SET "author_role" = 'OWNER' WHERE "agent_id" IS NULL;--> statement-breakpoint
UPDATE "campaign_messages" m SET "author_role" = e."actor_role" FROM "campaign_events" e WHERE e."message_id" = m."id" AND m."agent_id" IS NOT NULL;--> statement-breakpoint
UPDATE "campaign_evidence" ce SET "author_role" = e."actor_role" FROM "campaign_events" e WHERE e."campaign_id" = ce."campaign_id" AND e."actor_agent_id" = ce."agent_id" AND e."kind" IN ('EVIDENCE_READ', 'EVIDENCE_SUBMITTED', 'TASK_SUBMITTED') AND e."evidence_ids" @> jsonb_build_array(ce."evidence_id");
