ALTER TABLE "device_authorizations" ADD COLUMN "requested_by" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "guest_request_id" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "guest_campaign_id" text;--> statement-breakpoint
ALTER TABLE "matching_requests" ADD COLUMN "joined_agent_id" text;--> statement-breakpoint
ALTER TABLE "device_authorizations" ADD CONSTRAINT "device_authorizations_requested_by_agents_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "matching_requests" ADD CONSTRAINT "matching_requests_joined_agent_id_agents_id_fk" FOREIGN KEY ("joined_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;