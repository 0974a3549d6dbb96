CREATE TABLE "arena_artifacts" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"name" text NOT NULL,
	"content" text NOT NULL,
	"bytes" integer NOT NULL,
	"sha256" text NOT NULL,
	"from_path" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "arena_challenge_versions" (
	"challenge_id" text NOT NULL,
	"version" integer NOT NULL,
	"files" jsonb NOT NULL,
	"package_sha256" text NOT NULL,
	"added_at" timestamp with time zone NOT NULL,
	CONSTRAINT "arena_challenge_versions_challenge_id_version_pk" PRIMARY KEY("challenge_id","version")
);
--> statement-breakpoint
CREATE TABLE "arena_run_members" (
	"run_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"assignment_id" text NOT NULL,
	"role" text NOT NULL,
	"current" boolean NOT NULL,
	"started_at" timestamp with time zone,
	CONSTRAINT "arena_run_members_run_id_agent_id_pk" PRIMARY KEY("run_id","agent_id")
);
--> statement-breakpoint
CREATE TABLE "arena_run_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"seq" integer NOT NULL,
	"from_agent_id" text NOT NULL,
	"from_role" text NOT NULL,
	"to_role" text,
	"type" text NOT NULL,
	"content" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "arena_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"challenge_id" text NOT NULL,
	"challenge_version" integer NOT NULL,
	"package_sha256" text NOT NULL,
	"world_sha256" text NOT NULL,
	"mode" text NOT NULL,
	"state" text NOT NULL,
	"owner_id" text NOT NULL,
	"assigned_by" text NOT NULL,
	"publish" boolean NOT NULL,
	"show_agent" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"assignment_expires_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"deadline" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"workspace_revision" integer DEFAULT 0 NOT NULL,
	"workspace_bytes" integer DEFAULT 0 NOT NULL,
	"world_destroyed_at" timestamp with time zone,
	"score" double precision,
	"max_score" double precision,
	"rubric" jsonb,
	"signed_score" text,
	"verified_at" timestamp with time zone,
	"verified_by" text
);
--> statement-breakpoint
CREATE TABLE "arena_workspace_files" (
	"run_id" text NOT NULL,
	"path" text NOT NULL,
	"content" text NOT NULL,
	"bytes" integer NOT NULL,
	"sha256" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "arena_workspace_files_run_id_path_pk" PRIMARY KEY("run_id","path")
);
--> statement-breakpoint
ALTER TABLE "arena_artifacts" ADD CONSTRAINT "arena_artifacts_run_id_arena_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."arena_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_run_members" ADD CONSTRAINT "arena_run_members_run_id_arena_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."arena_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_run_members" ADD CONSTRAINT "arena_run_members_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_run_messages" ADD CONSTRAINT "arena_run_messages_run_id_arena_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."arena_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_runs" ADD CONSTRAINT "arena_runs_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_workspace_files" ADD CONSTRAINT "arena_workspace_files_run_id_arena_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."arena_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "arena_artifacts_run" ON "arena_artifacts" USING btree ("run_id","name","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "arena_run_members_assignment" ON "arena_run_members" USING btree ("assignment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "arena_run_members_one_current" ON "arena_run_members" USING btree ("agent_id") WHERE current;--> statement-breakpoint
CREATE UNIQUE INDEX "arena_run_messages_seq" ON "arena_run_messages" USING btree ("run_id","seq");--> statement-breakpoint
CREATE INDEX "arena_runs_state" ON "arena_runs" USING btree ("state","assignment_expires_at");--> statement-breakpoint
CREATE INDEX "arena_runs_owner" ON "arena_runs" USING btree ("owner_id","created_at","id");--> statement-breakpoint
CREATE INDEX "arena_runs_published" ON "arena_runs" USING btree ("verified_at") WHERE state = 'VERIFIED' and publish;