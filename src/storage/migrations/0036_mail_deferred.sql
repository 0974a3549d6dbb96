CREATE TABLE "mail_deferred" (
	"id" text PRIMARY KEY NOT NULL,
	"campaign_id" text NOT NULL,
	"recipient" text NOT NULL,
	"attempt_id" text NOT NULL,
	"via" text NOT NULL,
	"remote" text,
	"provider_delivery_id" text,
	"size" integer NOT NULL,
	"raw" "bytea",
	"processed" jsonb,
	"tries" integer NOT NULL,
	"next_try_at" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mail_deferred" ADD CONSTRAINT "mail_deferred_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mail_deferred_due_idx" ON "mail_deferred" USING btree ("next_try_at");