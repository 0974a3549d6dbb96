CREATE TABLE "campaign_skills" (
	"id" text PRIMARY KEY NOT NULL,
	"campaign_id" text NOT NULL,
	"version_id" text NOT NULL,
	"state" text NOT NULL,
	"proposed_by_agent_id" text,
	"proposed_by_owner_id" text,
	"note" text,
	"decided_by" text,
	"decision_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skill_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"version_id" text NOT NULL,
	"path" text NOT NULL,
	"agent_id" text NOT NULL,
	"lease_id" text,
	"byte_start" integer NOT NULL,
	"byte_end" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skill_draft_files" (
	"draft_id" text NOT NULL,
	"path" text NOT NULL,
	"content" "bytea" NOT NULL,
	"size" integer NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "skill_draft_files_draft_id_path_pk" PRIMARY KEY("draft_id","path")
);
--> statement-breakpoint
CREATE TABLE "skill_drafts" (
	"id" text PRIMARY KEY NOT NULL,
	"skill_id" text NOT NULL,
	"owner_id" text NOT NULL,
	"author_agent_id" text,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"tags" jsonb NOT NULL,
	"revision" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skill_events" (
	"id" text PRIMARY KEY NOT NULL,
	"skill_id" text NOT NULL,
	"version_id" text,
	"kind" text NOT NULL,
	"actor_agent_id" text,
	"actor_owner_id" text,
	"detail" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skill_grants" (
	"id" text PRIMARY KEY NOT NULL,
	"version_id" text NOT NULL,
	"grantee_agent_id" text NOT NULL,
	"granted_by_owner_id" text NOT NULL,
	"note" text,
	"created_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"revoke_reason" text
);
--> statement-breakpoint
CREATE TABLE "skill_usage_reports" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"version_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"lease_id" text,
	"outcome" text NOT NULL,
	"note" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skill_version_files" (
	"version_id" text NOT NULL,
	"path" text NOT NULL,
	"sha256" text NOT NULL,
	"size" integer NOT NULL,
	"is_text" text NOT NULL,
	"content" "bytea",
	CONSTRAINT "skill_version_files_version_id_path_pk" PRIMARY KEY("version_id","path")
);
--> statement-breakpoint
CREATE TABLE "skill_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"skill_id" text NOT NULL,
	"owner_id" text NOT NULL,
	"author_agent_id" text,
	"number" integer NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"license" text,
	"compatibility" text,
	"metadata" jsonb NOT NULL,
	"allowed_tools" text,
	"tags" jsonb NOT NULL,
	"package_sha256" text NOT NULL,
	"total_bytes" integer NOT NULL,
	"file_count" integer NOT NULL,
	"status" text NOT NULL,
	"blocked_at" timestamp with time zone,
	"blocked_by" text,
	"block_reason" text,
	"bytes_deleted_at" timestamp with time zone,
	"published_from_revision" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skills" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"author_agent_id" text,
	"name" text NOT NULL,
	"lifecycle_status" text NOT NULL,
	"archived_at" timestamp with time zone,
	"archive_reason" text,
	"version_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_skills" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"campaign_id" text NOT NULL,
	"version_id" text NOT NULL,
	"purpose" text NOT NULL,
	"position" integer NOT NULL,
	"delivery" text NOT NULL,
	"attached_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"detached_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "campaign_skills" ADD CONSTRAINT "campaign_skills_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_skills" ADD CONSTRAINT "campaign_skills_version_id_skill_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."skill_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_draft_files" ADD CONSTRAINT "skill_draft_files_draft_id_skill_drafts_id_fk" FOREIGN KEY ("draft_id") REFERENCES "public"."skill_drafts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_drafts" ADD CONSTRAINT "skill_drafts_skill_id_skills_id_fk" FOREIGN KEY ("skill_id") REFERENCES "public"."skills"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_grants" ADD CONSTRAINT "skill_grants_version_id_skill_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."skill_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_grants" ADD CONSTRAINT "skill_grants_grantee_agent_id_agents_id_fk" FOREIGN KEY ("grantee_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_version_files" ADD CONSTRAINT "skill_version_files_version_id_skill_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."skill_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_versions" ADD CONSTRAINT "skill_versions_skill_id_skills_id_fk" FOREIGN KEY ("skill_id") REFERENCES "public"."skills"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skills" ADD CONSTRAINT "skills_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skills" ADD CONSTRAINT "skills_author_agent_id_agents_id_fk" FOREIGN KEY ("author_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_skills" ADD CONSTRAINT "task_skills_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_skills" ADD CONSTRAINT "task_skills_version_id_skill_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."skill_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_skills_live_key" ON "campaign_skills" USING btree ("campaign_id","version_id") WHERE "campaign_skills"."state" in ('PROPOSED', 'ACCEPTED');--> statement-breakpoint
CREATE INDEX "campaign_skills_campaign_idx" ON "campaign_skills" USING btree ("campaign_id","id");--> statement-breakpoint
CREATE INDEX "skill_deliveries_lease_idx" ON "skill_deliveries" USING btree ("lease_id","version_id","path");--> statement-breakpoint
CREATE UNIQUE INDEX "skill_drafts_skill_key" ON "skill_drafts" USING btree ("skill_id");--> statement-breakpoint
CREATE INDEX "skill_drafts_owner_idx" ON "skill_drafts" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "skill_events_version_idx" ON "skill_events" USING btree ("version_id","id");--> statement-breakpoint
CREATE INDEX "skill_events_skill_idx" ON "skill_events" USING btree ("skill_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "skill_grants_live_key" ON "skill_grants" USING btree ("version_id","grantee_agent_id") WHERE "skill_grants"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "skill_grants_grantee_idx" ON "skill_grants" USING btree ("grantee_agent_id");--> statement-breakpoint
CREATE INDEX "skill_usage_version_idx" ON "skill_usage_reports" USING btree ("version_id","id");--> statement-breakpoint
CREATE INDEX "skill_usage_task_idx" ON "skill_usage_reports" USING btree ("task_id");--> statement-breakpoint
CREATE UNIQUE INDEX "skill_versions_number_key" ON "skill_versions" USING btree ("skill_id","number");--> statement-breakpoint
CREATE INDEX "skill_versions_owner_idx" ON "skill_versions" USING btree ("owner_id","id");--> statement-breakpoint
CREATE INDEX "skill_versions_author_idx" ON "skill_versions" USING btree ("author_agent_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "task_skills_live_key" ON "task_skills" USING btree ("task_id","version_id") WHERE "task_skills"."detached_at" is null;