-- Full-text search (evidence_search; docs/research.md "Full-text search"). Stored generated
-- tsvectors in one fixed configuration ('english'): the evidence title (weight A, first 1,000
-- characters) and the first 100,000 characters of its text (weight D), so to_tsvector stays
-- far below tsvector's 1 MB limit whatever the text (measured worst case about 7.5 bytes a
-- character); a message's content (at most 8,000 characters). Written by hand: drizzle's table
-- definitions leave these columns out (reading/tables.ts says why) and declare only the indexes.
ALTER TABLE "evidence" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (setweight(to_tsvector('english'::regconfig, left(coalesce("title", ''), 1000)), 'A') || setweight(to_tsvector('english'::regconfig, left("text", 100000)), 'D')) STORED;--> statement-breakpoint
ALTER TABLE "campaign_messages" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, "content")) STORED;--> statement-breakpoint
CREATE INDEX "campaign_messages_search_idx" ON "campaign_messages" USING gin ("search_vector");--> statement-breakpoint
CREATE INDEX "evidence_search_idx" ON "evidence" USING gin ("search_vector");
