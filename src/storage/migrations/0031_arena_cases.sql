CREATE TABLE "arena_cases" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"run_id" text NOT NULL,
	"subject_type" text NOT NULL,
	"challenge_id" text NOT NULL,
	"challenge_version" integer NOT NULL,
	"filer_agent_id" text NOT NULL,
	"statement" text NOT NULL,
	"evidence_ids" jsonb NOT NULL,
	"appeal_of" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"outcome" text,
	"reasons" text,
	"decided_by" text,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "owners" ADD COLUMN "arena_reviewer" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "arena_cases" ADD CONSTRAINT "arena_cases_run_id_arena_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."arena_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_cases" ADD CONSTRAINT "arena_cases_filer_agent_id_agents_id_fk" FOREIGN KEY ("filer_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_cases" ADD CONSTRAINT "arena_cases_decided_by_owners_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "arena_cases_filer" ON "arena_cases" USING btree ("filer_agent_id","created_at");--> statement-breakpoint
CREATE INDEX "arena_cases_open" ON "arena_cases" USING btree ("status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "arena_cases_one_pending_appeal" ON "arena_cases" USING btree ("appeal_of") WHERE status = 'OPEN' and kind = 'APPEAL';