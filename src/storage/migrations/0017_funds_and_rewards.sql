CREATE TABLE "reward_approvals" (
	"id" text PRIMARY KEY NOT NULL,
	"task_id" text NOT NULL,
	"campaign_id" text NOT NULL,
	"owner_id" text NOT NULL,
	"submission_id" text NOT NULL,
	"worker_agent_id" text NOT NULL,
	"worker_owner_id" text NOT NULL,
	"requested_by" text NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"transaction_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_rewards" (
	"task_id" text PRIMARY KEY NOT NULL,
	"campaign_id" text NOT NULL,
	"owner_id" text NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"fee" bigint NOT NULL,
	"status" text NOT NULL,
	"paid_to_agent_id" text,
	"paid_to_owner_id" text,
	"funded_at" timestamp with time zone,
	"settled_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fund_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"kind" text NOT NULL,
	"owner_id" text,
	"currency" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "fund_postings" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"transaction_id" text NOT NULL,
	"account_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "fund_postings_nonzero" CHECK ("fund_postings"."amount" <> 0)
);
--> statement-breakpoint
CREATE TABLE "fund_transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"purpose_key" text NOT NULL,
	"currency" text NOT NULL,
	"campaign_id" text,
	"task_id" text,
	"actor" text NOT NULL,
	"note" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "rework_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "reward_approvals" ADD CONSTRAINT "reward_approvals_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reward_approvals" ADD CONSTRAINT "reward_approvals_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_rewards" ADD CONSTRAINT "task_rewards_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_rewards" ADD CONSTRAINT "task_rewards_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_rewards" ADD CONSTRAINT "task_rewards_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fund_accounts" ADD CONSTRAINT "fund_accounts_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fund_postings" ADD CONSTRAINT "fund_postings_transaction_id_fund_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."fund_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fund_postings" ADD CONSTRAINT "fund_postings_account_id_fund_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."fund_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reward_approvals_pending_key" ON "reward_approvals" USING btree ("task_id") WHERE "reward_approvals"."status" = 'PENDING';--> statement-breakpoint
CREATE INDEX "reward_approvals_owner_idx" ON "reward_approvals" USING btree ("owner_id","status","created_at");--> statement-breakpoint
CREATE INDEX "task_rewards_campaign_idx" ON "task_rewards" USING btree ("campaign_id");--> statement-breakpoint
CREATE INDEX "task_rewards_owner_idx" ON "task_rewards" USING btree ("owner_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "fund_accounts_key" ON "fund_accounts" USING btree ("key");--> statement-breakpoint
CREATE INDEX "fund_accounts_owner_idx" ON "fund_accounts" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "fund_postings_account_idx" ON "fund_postings" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "fund_postings_transaction_idx" ON "fund_postings" USING btree ("transaction_id");--> statement-breakpoint
CREATE UNIQUE INDEX "fund_transactions_purpose_key" ON "fund_transactions" USING btree ("purpose_key");