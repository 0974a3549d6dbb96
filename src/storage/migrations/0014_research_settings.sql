ALTER TABLE "campaigns" ADD COLUMN "allow_same_owner_review" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "tlp" text DEFAULT 'TLP:AMBER' NOT NULL;