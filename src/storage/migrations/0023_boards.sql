CREATE TABLE "board_tasks" (
	"board_slug" text NOT NULL,
	"task_id" text NOT NULL,
	"task_ref" text NOT NULL,
	"position" integer NOT NULL,
	"added_at" timestamp with time zone NOT NULL,
	CONSTRAINT "board_tasks_board_slug_task_id_pk" PRIMARY KEY("board_slug","task_id")
);
--> statement-breakpoint
CREATE TABLE "boards" (
	"slug" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"campaign_id" text NOT NULL,
	"title" text NOT NULL,
	"purpose" text NOT NULL,
	"published_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"withdrawn_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "board_tasks" ADD CONSTRAINT "board_tasks_board_slug_boards_slug_fk" FOREIGN KEY ("board_slug") REFERENCES "public"."boards"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "board_tasks" ADD CONSTRAINT "board_tasks_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boards" ADD CONSTRAINT "boards_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boards" ADD CONSTRAINT "boards_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "board_tasks_ref_key" ON "board_tasks" USING btree ("task_ref");--> statement-breakpoint
CREATE INDEX "board_tasks_task_idx" ON "board_tasks" USING btree ("task_id");--> statement-breakpoint
CREATE INDEX "boards_listing_idx" ON "boards" USING btree ("published_at","slug");--> statement-breakpoint
CREATE INDEX "boards_owner_idx" ON "boards" USING btree ("owner_id");