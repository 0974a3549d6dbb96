CREATE TABLE "campaign_defaults" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"campaign_id" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaign_events" (
	"campaign_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"id" text NOT NULL,
	"kind" text NOT NULL,
	"actor_agent_id" text,
	"actor_owner_id" text,
	"actor_role" text NOT NULL,
	"task_id" text,
	"message_id" text,
	"addressed_to" text,
	"is_result" boolean DEFAULT false NOT NULL,
	"evidence_ids" jsonb NOT NULL,
	"subject_agent_id" text,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "campaign_events_campaign_id_seq_pk" PRIMARY KEY("campaign_id","seq")
);
--> statement-breakpoint
CREATE TABLE "campaign_evidence" (
	"campaign_id" text NOT NULL,
	"evidence_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"task_id" text,
	"note" text,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "campaign_evidence_campaign_id_evidence_id_pk" PRIMARY KEY("campaign_id","evidence_id")
);
--> statement-breakpoint
CREATE TABLE "campaign_members" (
	"campaign_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"role" text NOT NULL,
	"status" text NOT NULL,
	"invited_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"joined_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "campaign_members_campaign_id_agent_id_pk" PRIMARY KEY("campaign_id","agent_id")
);
--> statement-breakpoint
CREATE TABLE "campaign_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"campaign_id" text NOT NULL,
	"agent_id" text,
	"owner_id" text,
	"type" text NOT NULL,
	"label" text,
	"content" text NOT NULL,
	"addressed_to" text,
	"reply_to" text,
	"task_id" text,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "campaigns" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"created_by" text NOT NULL,
	"title" text NOT NULL,
	"objective" text NOT NULL,
	"budget" jsonb,
	"scopes" jsonb NOT NULL,
	"allow_agent_publish" boolean NOT NULL,
	"visibility" text NOT NULL,
	"participation" text NOT NULL,
	"status" text NOT NULL,
	"last_seq" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_history" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"agent_id" text,
	"kind" text NOT NULL,
	"before" jsonb NOT NULL,
	"after" jsonb NOT NULL,
	"version" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_leases" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"campaign_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	"execution_deadline" timestamp with time zone NOT NULL,
	"last_heartbeat_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"end_reason" text,
	"release_reason" text
);
--> statement-breakpoint
CREATE TABLE "task_submissions" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"lease_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"evidence_ids" jsonb NOT NULL,
	"claimed_outcome" text NOT NULL,
	"summary" text NOT NULL,
	"verification" jsonb NOT NULL,
	"verified_status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"checked_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"campaign_id" text NOT NULL,
	"created_by" text NOT NULL,
	"created_by_owner" text,
	"title" text NOT NULL,
	"objective" text NOT NULL,
	"acceptance" text NOT NULL,
	"conditions" jsonb NOT NULL,
	"status" text NOT NULL,
	"assignee_id" text,
	"parent_task_id" text,
	"version" integer NOT NULL,
	"edit_count" integer DEFAULT 0 NOT NULL,
	"last_edited_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "campaign_defaults" ADD CONSTRAINT "campaign_defaults_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_defaults" ADD CONSTRAINT "campaign_defaults_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_events" ADD CONSTRAINT "campaign_events_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_evidence" ADD CONSTRAINT "campaign_evidence_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_members" ADD CONSTRAINT "campaign_members_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_members" ADD CONSTRAINT "campaign_members_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_messages" ADD CONSTRAINT "campaign_messages_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_created_by_agents_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_history" ADD CONSTRAINT "task_history_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_leases" ADD CONSTRAINT "task_leases_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_submissions" ADD CONSTRAINT "task_submissions_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "campaign_events_id_idx" ON "campaign_events" USING btree ("id");--> statement-breakpoint
CREATE INDEX "campaign_events_task_idx" ON "campaign_events" USING btree ("task_id","seq");--> statement-breakpoint
CREATE INDEX "campaign_evidence_evidence_idx" ON "campaign_evidence" USING btree ("evidence_id");--> statement-breakpoint
CREATE INDEX "campaign_members_agent_idx" ON "campaign_members" USING btree ("agent_id","status");--> statement-breakpoint
CREATE INDEX "campaign_messages_campaign_idx" ON "campaign_messages" USING btree ("campaign_id","created_at");--> statement-breakpoint
CREATE INDEX "campaigns_owner_idx" ON "campaigns" USING btree ("owner_id","created_at");--> statement-breakpoint
CREATE INDEX "task_history_task_idx" ON "task_history" USING btree ("task_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "task_leases_one_open_idx" ON "task_leases" USING btree ("task_id") WHERE "task_leases"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "task_leases_agent_idx" ON "task_leases" USING btree ("agent_id","ended_at");--> statement-breakpoint
CREATE INDEX "task_leases_deadline_idx" ON "task_leases" USING btree ("execution_deadline") WHERE "task_leases"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "task_submissions_task_idx" ON "task_submissions" USING btree ("task_id","created_at");--> statement-breakpoint
CREATE INDEX "tasks_campaign_idx" ON "tasks" USING btree ("campaign_id","created_at");