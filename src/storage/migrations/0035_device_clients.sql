ALTER TABLE "device_authorizations" ADD COLUMN "client_id" text;--> statement-breakpoint
ALTER TABLE "device_authorizations" ADD COLUMN "grant_id" text;