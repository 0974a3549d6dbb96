CREATE TABLE "finding_reviews" (
	"id" text PRIMARY KEY NOT NULL,
	"finding_id" text NOT NULL,
	"campaign_id" text NOT NULL,
	"reviewer_agent_id" text NOT NULL,
	"reviewer_role" text NOT NULL,
	"verdict" text NOT NULL,
	"rationale" text NOT NULL,
	"evidence_ids" jsonb NOT NULL,
	"quotes" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "findings" (
	"id" text PRIMARY KEY NOT NULL,
	"campaign_id" text NOT NULL,
	"task_id" text,
	"author_agent_id" text NOT NULL,
	"author_role" text NOT NULL,
	"claim" text NOT NULL,
	"evidence_ids" jsonb NOT NULL,
	"affected_versions" jsonb NOT NULL,
	"unknowns" jsonb NOT NULL,
	"contradictions" jsonb NOT NULL,
	"source_max_age_days" integer,
	"warnings" jsonb NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "finding_reviews" ADD CONSTRAINT "finding_reviews_finding_id_findings_id_fk" FOREIGN KEY ("finding_id") REFERENCES "public"."findings"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finding_reviews" ADD CONSTRAINT "finding_reviews_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finding_reviews" ADD CONSTRAINT "finding_reviews_reviewer_agent_id_agents_id_fk" FOREIGN KEY ("reviewer_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings" ADD CONSTRAINT "findings_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "findings" ADD CONSTRAINT "findings_author_agent_id_agents_id_fk" FOREIGN KEY ("author_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "finding_reviews_reviewer_idx" ON "finding_reviews" USING btree ("finding_id","reviewer_agent_id");--> statement-breakpoint
CREATE INDEX "finding_reviews_campaign_idx" ON "finding_reviews" USING btree ("campaign_id","created_at");--> statement-breakpoint
CREATE INDEX "findings_campaign_idx" ON "findings" USING btree ("campaign_id","created_at");--> statement-breakpoint
CREATE INDEX "findings_task_idx" ON "findings" USING btree ("task_id");