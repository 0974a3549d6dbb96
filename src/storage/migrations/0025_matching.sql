CREATE TABLE "matching_blocks" (
	"campaign_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"blocked_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "matching_blocks_campaign_id_agent_id_pk" PRIMARY KEY("campaign_id","agent_id")
);
--> statement-breakpoint
CREATE TABLE "matching_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"state" text NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "matching_intents" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"agent_id" text,
	"campaign_id" text,
	"owner_id" text NOT NULL,
	"alias" text NOT NULL,
	"topic" text NOT NULL,
	"help_offered" text NOT NULL,
	"effort" text NOT NULL,
	"availability" text NOT NULL,
	"application_ref" text,
	"public" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "matching_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"intent_id" text NOT NULL,
	"intent_kind" text NOT NULL,
	"intent_alias" text NOT NULL,
	"intent_topic" text NOT NULL,
	"application_ref" text NOT NULL,
	"campaign_id" text NOT NULL,
	"campaign_owner_id" text NOT NULL,
	"requester_agent_id" text NOT NULL,
	"target_key" text NOT NULL,
	"target_agent_id" text,
	"joiner_agent_id" text NOT NULL,
	"joiner_owner_id" text NOT NULL,
	"reason" text NOT NULL,
	"state" text NOT NULL,
	"waiting_for" text,
	"stop_reason" text,
	"response_reason" text,
	"responded_by" text,
	"campaign_owner_decided_at" timestamp with time zone,
	"joiner_owner_decided_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "matching_enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "matching_public" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "matching_blocks" ADD CONSTRAINT "matching_blocks_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_blocks" ADD CONSTRAINT "matching_blocks_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_changes" ADD CONSTRAINT "matching_changes_request_id_matching_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."matching_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_intents" ADD CONSTRAINT "matching_intents_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_intents" ADD CONSTRAINT "matching_intents_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_intents" ADD CONSTRAINT "matching_intents_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_requests" ADD CONSTRAINT "matching_requests_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_requests" ADD CONSTRAINT "matching_requests_campaign_owner_id_owners_id_fk" FOREIGN KEY ("campaign_owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_requests" ADD CONSTRAINT "matching_requests_requester_agent_id_agents_id_fk" FOREIGN KEY ("requester_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_requests" ADD CONSTRAINT "matching_requests_target_agent_id_agents_id_fk" FOREIGN KEY ("target_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_requests" ADD CONSTRAINT "matching_requests_joiner_agent_id_agents_id_fk" FOREIGN KEY ("joiner_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_requests" ADD CONSTRAINT "matching_requests_joiner_owner_id_owners_id_fk" FOREIGN KEY ("joiner_owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "matching_changes_request_idx" ON "matching_changes" USING btree ("request_id");--> statement-breakpoint
CREATE UNIQUE INDEX "matching_intents_agent_key" ON "matching_intents" USING btree ("agent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "matching_intents_campaign_key" ON "matching_intents" USING btree ("campaign_id");--> statement-breakpoint
CREATE UNIQUE INDEX "matching_intents_ref_key" ON "matching_intents" USING btree ("application_ref");--> statement-breakpoint
CREATE INDEX "matching_intents_listing_idx" ON "matching_intents" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "matching_requests_open_key" ON "matching_requests" USING btree ("requester_agent_id","target_key") WHERE state in ('PROPOSED', 'TENTATIVE');--> statement-breakpoint
CREATE INDEX "matching_requests_requester_idx" ON "matching_requests" USING btree ("requester_agent_id","id");--> statement-breakpoint
CREATE INDEX "matching_requests_target_idx" ON "matching_requests" USING btree ("target_key","id");--> statement-breakpoint
CREATE INDEX "matching_requests_pair_idx" ON "matching_requests" USING btree ("campaign_id","joiner_agent_id");--> statement-breakpoint
CREATE INDEX "matching_requests_joiner_owner_idx" ON "matching_requests" USING btree ("joiner_owner_id");--> statement-breakpoint
CREATE INDEX "matching_requests_campaign_owner_idx" ON "matching_requests" USING btree ("campaign_owner_id");--> statement-breakpoint
CREATE INDEX "matching_requests_open_expiry_idx" ON "matching_requests" USING btree ("expires_at") WHERE state in ('PROPOSED', 'TENTATIVE');