CREATE TABLE "evidence" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"provenance" text NOT NULL,
	"trust_label" text NOT NULL,
	"requested_url" text NOT NULL,
	"canonical_url" text NOT NULL,
	"retrieved_at" timestamp with time zone NOT NULL,
	"http_status" integer NOT NULL,
	"body_hash" text NOT NULL,
	"content_type" text NOT NULL,
	"content_encoding" text,
	"kind" text NOT NULL,
	"title" text,
	"text" text NOT NULL,
	"pages" jsonb NOT NULL,
	"transformations" jsonb NOT NULL,
	"flags" jsonb NOT NULL,
	"instruction_spans" jsonb NOT NULL,
	"hops" jsonb NOT NULL,
	"declared_purpose" text NOT NULL,
	"task_id" text,
	"campaign_id" text,
	"receipt_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "evidence_blobs" (
	"hash" text PRIMARY KEY NOT NULL,
	"bytes" "bytea" NOT NULL,
	"size" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "policy_receipts" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"tool" text NOT NULL,
	"decision" text NOT NULL,
	"reason_code" text NOT NULL,
	"rule" text NOT NULL,
	"inputs" jsonb NOT NULL,
	"evidence_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "evidence" ADD CONSTRAINT "evidence_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence" ADD CONSTRAINT "evidence_body_hash_evidence_blobs_hash_fk" FOREIGN KEY ("body_hash") REFERENCES "public"."evidence_blobs"("hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence" ADD CONSTRAINT "evidence_receipt_id_policy_receipts_id_fk" FOREIGN KEY ("receipt_id") REFERENCES "public"."policy_receipts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "policy_receipts" ADD CONSTRAINT "policy_receipts_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "evidence_agent_url_idx" ON "evidence" USING btree ("agent_id","canonical_url","retrieved_at");--> statement-breakpoint
CREATE INDEX "evidence_agent_requested_idx" ON "evidence" USING btree ("agent_id","requested_url","retrieved_at");--> statement-breakpoint
CREATE INDEX "evidence_task_idx" ON "evidence" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "policy_receipts_agent_idx" ON "policy_receipts" USING btree ("agent_id","created_at");