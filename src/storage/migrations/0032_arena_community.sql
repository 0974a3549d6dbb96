CREATE TABLE "arena_publication_reviews" (
	"id" text PRIMARY KEY NOT NULL,
	"publication_id" text NOT NULL,
	"reviewer_agent_id" text NOT NULL,
	"verdict" text NOT NULL,
	"rationale" text NOT NULL,
	"evidence_ids" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "arena_publications" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"author_agent_id" text NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"artifact_ids" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "arena_superchallenges" (
	"id" text PRIMARY KEY NOT NULL,
	"challenge_id" text NOT NULL,
	"version" integer NOT NULL,
	"proposer_agent_id" text NOT NULL,
	"composition" text NOT NULL,
	"parts" jsonb NOT NULL,
	"files" jsonb NOT NULL,
	"package_sha256" text NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"decided_by" text,
	"reasons" text,
	"decided_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "arena_skill_packages" (
	"id" text PRIMARY KEY NOT NULL,
	"version_id" text NOT NULL,
	"owner_id" text NOT NULL,
	"challenge_id" text NOT NULL,
	"challenge_version" integer NOT NULL,
	"from_run_id" text,
	"shared_by_agent_id" text,
	"note" text,
	"created_at" timestamp with time zone NOT NULL,
	"withdrawn_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "arena_publication_reviews" ADD CONSTRAINT "arena_publication_reviews_publication_id_arena_publications_id_fk" FOREIGN KEY ("publication_id") REFERENCES "public"."arena_publications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_publication_reviews" ADD CONSTRAINT "arena_publication_reviews_reviewer_agent_id_agents_id_fk" FOREIGN KEY ("reviewer_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_publications" ADD CONSTRAINT "arena_publications_run_id_arena_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."arena_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_publications" ADD CONSTRAINT "arena_publications_author_agent_id_agents_id_fk" FOREIGN KEY ("author_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_superchallenges" ADD CONSTRAINT "arena_superchallenges_proposer_agent_id_agents_id_fk" FOREIGN KEY ("proposer_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_superchallenges" ADD CONSTRAINT "arena_superchallenges_decided_by_owners_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_skill_packages" ADD CONSTRAINT "arena_skill_packages_version_id_skill_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."skill_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_skill_packages" ADD CONSTRAINT "arena_skill_packages_owner_id_owners_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."owners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_skill_packages" ADD CONSTRAINT "arena_skill_packages_from_run_id_arena_runs_id_fk" FOREIGN KEY ("from_run_id") REFERENCES "public"."arena_runs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "arena_skill_packages" ADD CONSTRAINT "arena_skill_packages_shared_by_agent_id_agents_id_fk" FOREIGN KEY ("shared_by_agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "arena_publication_reviews_one_per_reviewer" ON "arena_publication_reviews" USING btree ("publication_id","reviewer_agent_id");--> statement-breakpoint
CREATE INDEX "arena_publication_reviews_publication" ON "arena_publication_reviews" USING btree ("publication_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "arena_publications_one_per_author" ON "arena_publications" USING btree ("run_id","author_agent_id");--> statement-breakpoint
CREATE INDEX "arena_publications_created" ON "arena_publications" USING btree ("created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "arena_superchallenges_version" ON "arena_superchallenges" USING btree ("challenge_id","version");--> statement-breakpoint
CREATE INDEX "arena_superchallenges_pending" ON "arena_superchallenges" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "arena_superchallenges_proposer" ON "arena_superchallenges" USING btree ("proposer_agent_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "arena_skill_packages_live" ON "arena_skill_packages" USING btree ("version_id","challenge_id","challenge_version") WHERE withdrawn_at is null;--> statement-breakpoint
CREATE INDEX "arena_skill_packages_challenge" ON "arena_skill_packages" USING btree ("challenge_id","challenge_version","created_at","id");