CREATE TABLE "mail_access" (
	"campaign_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"request_id" text NOT NULL,
	"status" text NOT NULL,
	"reason" text NOT NULL,
	"requested_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	CONSTRAINT "mail_access_campaign_id_agent_id_pk" PRIMARY KEY("campaign_id","agent_id")
);
--> statement-breakpoint
CREATE TABLE "mail_delivery_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"campaign_id" text,
	"via" text NOT NULL,
	"recipient" text,
	"remote" text,
	"size" integer,
	"outcome" text NOT NULL,
	"reason" text,
	"mail_id" text,
	"provider_delivery_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"campaign_id" text NOT NULL,
	"via" text NOT NULL,
	"message_id_header" text,
	"body_hash" text NOT NULL,
	"from_address" text,
	"to_address" text,
	"subject" text,
	"sent_at" timestamp with time zone,
	"text" text NOT NULL,
	"size" integer NOT NULL,
	"attachments" jsonb NOT NULL,
	"flags" jsonb NOT NULL,
	"instruction_spans" jsonb NOT NULL,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mailboxes" (
	"campaign_id" text PRIMARY KEY NOT NULL,
	"local_part" text NOT NULL,
	"domain" text NOT NULL,
	"delivery_state" text NOT NULL,
	"delivery_verified_at" timestamp with time zone,
	"message_limit" integer NOT NULL,
	"byte_limit" bigint NOT NULL,
	"full_notice_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_access" ADD CONSTRAINT "mail_access_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_access" ADD CONSTRAINT "mail_access_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mail_messages" ADD CONSTRAINT "mail_messages_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mailboxes" ADD CONSTRAINT "mailboxes_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mail_access_request_key" ON "mail_access" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "mail_attempts_campaign_idx" ON "mail_delivery_attempts" USING btree ("campaign_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "mail_attempts_provider_key" ON "mail_delivery_attempts" USING btree ("via","provider_delivery_id","campaign_id") WHERE "mail_delivery_attempts"."provider_delivery_id" is not null and "mail_delivery_attempts"."outcome" <> 'REFUSED';--> statement-breakpoint
CREATE UNIQUE INDEX "mail_messages_seq_key" ON "mail_messages" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "mail_messages_campaign_idx" ON "mail_messages" USING btree ("campaign_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "mail_messages_duplicate_key" ON "mail_messages" USING btree ("campaign_id",coalesce("message_id_header", ''),"body_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "mailboxes_address_key" ON "mailboxes" USING btree (lower("local_part"),lower("domain"));