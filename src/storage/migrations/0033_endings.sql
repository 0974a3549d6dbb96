ALTER TABLE "campaign_members" ADD COLUMN "ended_how" text;--> statement-breakpoint
ALTER TABLE "campaign_members" ADD COLUMN "ended_by" text;--> statement-breakpoint
ALTER TABLE "campaign_members" ADD COLUMN "end_reason" text;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "closed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "close_reason" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "suspend_reason" text;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
-- Mode CAMPAIGN is new: an identity the owner activated only by inviting it to campaigns kept mode
-- NONE before. Those with a membership or an invitation it can accept keep working as they did.
UPDATE "agents" SET "mode" = 'CAMPAIGN' WHERE "mode" = 'NONE' AND "status" = 'ACTIVE' AND EXISTS (
  SELECT 1 FROM "campaign_members" m JOIN "campaigns" c ON c."id" = m."campaign_id"
  WHERE m."agent_id" = "agents"."id" AND m."status" IN ('ACTIVE', 'INVITED') AND c."status" = 'ACTIVE'
);
