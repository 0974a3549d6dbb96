CREATE TABLE "public_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"board_slug" text NOT NULL,
	"task_ref" text NOT NULL,
	"task_id" text NOT NULL,
	"campaign_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"lease_id" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"end_reason" text
);
--> statement-breakpoint
ALTER TABLE "public_entries" ADD CONSTRAINT "public_entries_board_slug_boards_slug_fk" FOREIGN KEY ("board_slug") REFERENCES "public"."boards"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "public_entries" ADD CONSTRAINT "public_entries_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "public_entries" ADD CONSTRAINT "public_entries_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "public_entries" ADD CONSTRAINT "public_entries_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "public_entries_agent_idx" ON "public_entries" USING btree ("agent_id","task_id");--> statement-breakpoint
CREATE INDEX "public_entries_task_idx" ON "public_entries" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "public_entries_board_idx" ON "public_entries" USING btree ("board_slug");