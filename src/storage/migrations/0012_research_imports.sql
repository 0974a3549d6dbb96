ALTER TABLE "campaign_evidence" ALTER COLUMN "agent_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "evidence" ALTER COLUMN "agent_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "evidence" ALTER COLUMN "http_status" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "evidence" ALTER COLUMN "receipt_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "evidence" ADD COLUMN "owner_id" text;--> statement-breakpoint
ALTER TABLE "evidence" ADD COLUMN "import_format" text;--> statement-breakpoint
ALTER TABLE "evidence" ADD COLUMN "source_date" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "evidence" ADD COLUMN "authorized" boolean;--> statement-breakpoint
ALTER TABLE "evidence" ADD CONSTRAINT "evidence_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "evidence_owner_idx" ON "evidence" USING btree ("owner_id","created_at");--> statement-breakpoint
CREATE INDEX "evidence_campaign_idx" ON "evidence" USING btree ("campaign_id");--> statement-breakpoint
ALTER TABLE "evidence" ADD CONSTRAINT "evidence_author_check" CHECK ("evidence"."agent_id" is not null or "evidence"."owner_id" is not null);